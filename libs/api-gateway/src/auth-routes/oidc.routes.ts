import {
  CreateOidcGroupMappingRequest,
  CreateOidcProviderRequest,
  ListOidcGroupMappingsRequest,
  PageQuery,
  TestOidcProviderRequest,
  UpdateOidcProviderRequest,
} from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';
import { callerRights } from './escalation';

const PROVIDERS = '/api/v1/auth/oidc/providers';
const MAPPINGS = '/api/v1/auth/oidc/group-mappings';

/**
 * OIDC provider and group-mapping administration (spec 4.10; ADR 0081), served by the auth
 * service. The sign-in handshake itself sets cookies and redirects: OidcHandshakeController's.
 */
export const OIDC_ROUTES = [
  declareRoute({
    method: 'GET',
    path: PROVIDERS,
    permission: 'auth.oidc.list',
    status: 200,
    errors: [400, 401, 403],
    subject: 'auth.v1.list-oidc-providers',
    query: PageQuery,
    response: 'Page<OidcProviderDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'POST',
    path: PROVIDERS,
    permission: 'auth.oidc.create',
    status: 201,
    errors: [400, 401, 403, 409, 413],
    subject: 'auth.v1.create-oidc-provider',
    body: CreateOidcProviderRequest,
    response: 'OidcProviderDto',
    audit: 'auth.oidc_provider_created',
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'PUT',
    path: `${PROVIDERS}/:id`,
    permission: 'auth.oidc.edit',
    status: 200,
    errors: [400, 401, 403, 404, 409, 413],
    subject: 'auth.v1.update-oidc-provider',
    body: UpdateOidcProviderRequest,
    response: 'OidcProviderDto',
    audit: 'auth.oidc_provider_updated',
    payload: ({ params, body }) => ({ ...body, id: params.id }),
  }),
  declareRoute({
    method: 'DELETE',
    path: `${PROVIDERS}/:id`,
    permission: 'auth.oidc.delete',
    status: 204,
    errors: [400, 401, 403, 404, 409],
    subject: 'auth.v1.delete-oidc-provider',
    response: null,
    audit: 'auth.oidc_provider_deleted',
    payload: ({ params }) => ({ id: params.id }),
  }),
  /** Discovery and the key set fetched again now (after a key rotation at the IdP, say). */
  declareRoute({
    method: 'POST',
    path: `${PROVIDERS}/:id/refresh`,
    permission: 'auth.oidc.edit',
    status: 200,
    errors: [400, 401, 403, 404],
    subject: 'auth.v1.refresh-oidc-provider',
    response: 'OidcJwksStatus',
    audit: 'auth.oidc_provider_refreshed',
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'GET',
    path: `${PROVIDERS}/:id/jwks-status`,
    permission: 'auth.oidc.list',
    status: 200,
    errors: [400, 401, 403, 404],
    subject: 'auth.v1.get-oidc-jwks-status',
    response: 'OidcJwksStatus',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
  /** A dry run of discovery and the key set for an issuer; nothing is stored. */
  declareRoute({
    method: 'POST',
    path: '/api/v1/auth/oidc/test',
    permission: 'auth.oidc.create',
    status: 200,
    errors: [400, 401, 403, 413],
    subject: 'auth.v1.test-oidc-provider',
    body: TestOidcProviderRequest,
    response: 'OidcTestResult',
    audit: { notAudited: 'a dry run: reads an issuer, changes and stores nothing' },
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'GET',
    path: MAPPINGS,
    permission: 'auth.oidc.list',
    status: 200,
    errors: [400, 401, 403],
    subject: 'auth.v1.list-oidc-group-mappings',
    query: ListOidcGroupMappingsRequest,
    response: 'Page<OidcGroupMappingDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  /** The caller's own rights go with it: a mapping may hand out only what the caller holds. */
  declareRoute({
    method: 'POST',
    path: MAPPINGS,
    permission: 'auth.oidc.edit',
    status: 201,
    errors: [400, 401, 403, 404, 409, 413],
    subject: 'auth.v1.create-oidc-group-mapping',
    body: CreateOidcGroupMappingRequest,
    response: 'OidcGroupMappingDto',
    audit: 'auth.group_mapping_added',
    payload: ({ body, actor }) => ({ ...body, ...callerRights(actor) }),
  }),
  declareRoute({
    method: 'DELETE',
    path: `${MAPPINGS}/:id`,
    permission: 'auth.oidc.edit',
    status: 204,
    errors: [400, 401, 403, 404],
    subject: 'auth.v1.delete-oidc-group-mapping',
    response: null,
    audit: 'auth.group_mapping_removed',
    payload: ({ params }) => ({ id: params.id }),
  }),
];
