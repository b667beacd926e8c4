import { CertlaneError, CreateApiKeyRequest, ErrorCode, KeyManager, PageQuery } from '@certlane/contracts';
import { assertNoEscalation, defaultRolePermissions } from './escalation';
import { declareRoute, RouteInput } from '../routes/route-declaration';

/**
 * The caller as the auth service's key rules see it (a non-admin handles only keys that can do
 * nothing it cannot, ADR 0014 amendment); set after the body, so a client cannot supply it.
 */
const managerOf = (actor: RouteInput<unknown, object>['actor']): KeyManager => ({
  admin: actor?.admin ?? false,
  permissions: actor ? [...actor.permissions] : [],
});

const BASE = '/api/v1/auth/api-keys';

/** Creating an admin key takes an admin; granting roles with a key takes auth.role.assign. */
function assertMayCreate({ body, actor }: RouteInput<CreateApiKeyRequest, object>): void {
  const roleIds = body.role_ids ?? [];
  if ((body.admin || roleIds.includes('r-admin')) && !actor?.admin) {
    throw new CertlaneError(ErrorCode.Forbidden, 'only an admin can create an admin key or grant r-admin');
  }
  if (roleIds.length > 0 && !actor?.permissions.has('auth.role.assign')) {
    throw new CertlaneError(ErrorCode.Forbidden, 'granting roles needs the permission auth.role.assign', {
      permission: 'auth.role.assign',
    });
  }
  assertNoEscalation(actor, roleIds.flatMap(defaultRolePermissions), 'a key with these roles');
}

/**
 * Stored API keys (spec 4.10; docs/decisions/0013-api-keys-and-bootstrap.md), served by the auth
 * service; `GET /api/v1/auth/keys` lists every actor with its role ids. A rotated or deleted key
 * leaves the gateway's principal cache at once.
 */
export const API_KEY_ROUTES = [
  declareRoute({
    method: 'GET',
    path: BASE,
    permission: 'auth.key.list',
    status: 200,
    errors: [400, 401, 403],
    subject: 'auth.v1.list-api-keys',
    query: PageQuery,
    response: 'Page<ApiKeyDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'POST',
    path: BASE,
    permission: 'auth.key.create',
    status: 201,
    errors: [400, 401, 403, 404, 409, 413],
    subject: 'auth.v1.create-api-key',
    body: CreateApiKeyRequest,
    response: 'ApiKeyWithSecret',
    audit: 'auth.api_key_created',
    check: assertMayCreate,
    payload: ({ body, actor }) => ({
      ...body,
      created_by: actor?.id ?? 'unknown',
      manager: managerOf(actor),
    }),
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/:id/rotate`,
    permission: 'auth.key.rotate',
    status: 200,
    errors: [401, 403, 404],
    subject: 'auth.v1.rotate-api-key',
    response: 'ApiKeyWithSecret',
    audit: 'auth.api_key_rotated',
    evicts: 'api-key',
    payload: ({ params, actor }) => ({ id: params.id, manager: managerOf(actor) }),
  }),
  declareRoute({
    method: 'DELETE',
    path: `${BASE}/:id`,
    permission: 'auth.key.delete',
    status: 204,
    errors: [401, 403, 404],
    subject: 'auth.v1.delete-api-key',
    response: null,
    audit: 'auth.api_key_deleted',
    evicts: 'api-key',
    payload: ({ params, actor }) => ({ id: params.id, manager: managerOf(actor) }),
  }),
  declareRoute({
    method: 'GET',
    path: '/api/v1/auth/keys',
    permission: 'auth.role.list',
    status: 200,
    errors: [400, 401, 403],
    subject: 'auth.v1.list-actors',
    query: PageQuery,
    response: 'Page<ActorRoles>',
    audit: null,
    payload: ({ query }) => query,
  }),
];
