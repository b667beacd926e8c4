import { CreateProfileRequest, ListProfilesRequest, ProfileChanges } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/profiles';

/** /api/v1/profiles (spec 2.9, 4.5; ADR 0025): validated in the gateway, served by the issuance service. */
export const PROFILE_ROUTES = [
  declareRoute({
    method: 'GET',
    path: BASE,
    permission: 'profile.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'issuance.v1.list-profiles',
    query: ListProfilesRequest,
    response: 'Page<ProfileDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'POST',
    path: BASE,
    permission: 'profile.create',
    status: 201,
    errors: [400, 401, 403, 409, 413],
    subject: 'issuance.v1.create-profile',
    body: CreateProfileRequest,
    response: 'ProfileDto',
    audit: 'profile.created',
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/:id`,
    permission: 'profile.read',
    status: 200,
    errors: [401, 403, 404],
    subject: 'issuance.v1.get-profile',
    response: 'ProfileDto',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
  /** 200 with the profile, or 202 `{pending_approval_id}` when the edit waits for approval. */
  declareRoute({
    method: 'PUT',
    path: `${BASE}/:id`,
    permission: 'profile.edit',
    status: 200,
    alsoStatus: { 202: 'ProfilePendingApproval' },
    errors: [400, 401, 403, 404, 409, 413],
    subject: 'issuance.v1.update-profile',
    body: ProfileChanges,
    response: 'ProfileDto',
    audit: 'profile.updated',
    payload: ({ params, body }) => ({ ...body, id: params.id }),
    statusOf: (result) => (result.applied ? 200 : 202),
    reply: (result) =>
      result.applied ? result.profile : { pending_approval_id: result.pending_approval_id },
  }),
  declareRoute({
    method: 'DELETE',
    path: `${BASE}/:id`,
    permission: 'profile.delete',
    status: 204,
    errors: [401, 403, 404, 409],
    subject: 'issuance.v1.delete-profile',
    response: null,
    audit: 'profile.deleted',
    payload: ({ params }) => ({ id: params.id }),
  }),
];
