import { CreateRenewalPolicyRequest, PageQuery, RenewalPolicyChanges } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/renewal-policies';

/** /api/v1/renewal-policies (spec 4.6): validated in the gateway, served by the issuance service. */
export const RENEWAL_POLICY_ROUTES = [
  declareRoute({
    method: 'GET',
    path: BASE,
    permission: 'renewal_policy.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'issuance.v1.list-renewal-policies',
    query: PageQuery,
    response: 'Page<RenewalPolicyDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'POST',
    path: BASE,
    permission: 'renewal_policy.create',
    status: 201,
    errors: [400, 401, 403, 409, 413],
    subject: 'issuance.v1.create-renewal-policy',
    body: CreateRenewalPolicyRequest,
    response: 'RenewalPolicyDto',
    audit: 'renewal_policy.created',
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/:id`,
    permission: 'renewal_policy.read',
    status: 200,
    errors: [401, 403, 404],
    subject: 'issuance.v1.get-renewal-policy',
    response: 'RenewalPolicyDto',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'PUT',
    path: `${BASE}/:id`,
    permission: 'renewal_policy.edit',
    status: 200,
    errors: [400, 401, 403, 404, 409, 413],
    subject: 'issuance.v1.update-renewal-policy',
    body: RenewalPolicyChanges,
    response: 'RenewalPolicyDto',
    audit: 'renewal_policy.updated',
    payload: ({ params, body }) => ({ ...body, id: params.id }),
  }),
  declareRoute({
    method: 'DELETE',
    path: `${BASE}/:id`,
    permission: 'renewal_policy.delete',
    status: 204,
    errors: [401, 403, 404, 409],
    subject: 'issuance.v1.delete-renewal-policy',
    response: null,
    audit: 'renewal_policy.deleted',
    payload: ({ params }) => ({ id: params.id }),
  }),
];
