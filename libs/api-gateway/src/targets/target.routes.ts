import { CreateTargetRequest, ListTargetsRequest, TargetChanges } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/targets';

/** /api/v1/targets (spec 4.5; ADR 0026): validated in the gateway, served by deployment-dispatch. */
export const TARGET_ROUTES = [
  declareRoute({
    method: 'GET',
    path: BASE,
    permission: 'target.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'deployment-dispatch.v1.list-targets',
    query: ListTargetsRequest,
    response: 'Page<TargetDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'POST',
    path: BASE,
    permission: 'target.create',
    status: 201,
    errors: [400, 401, 403, 409, 413],
    subject: 'deployment-dispatch.v1.create-target',
    body: CreateTargetRequest,
    response: 'TargetDto',
    audit: 'target.created',
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/:id`,
    permission: 'target.read',
    status: 200,
    errors: [401, 403, 404],
    subject: 'deployment-dispatch.v1.get-target',
    response: 'TargetDto',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'PUT',
    path: `${BASE}/:id`,
    permission: 'target.edit',
    status: 200,
    errors: [400, 401, 403, 404, 409, 413],
    subject: 'deployment-dispatch.v1.update-target',
    body: TargetChanges,
    response: 'TargetDto',
    audit: 'target.updated',
    payload: ({ params, body }) => ({ ...body, id: params.id }),
  }),
  declareRoute({
    method: 'DELETE',
    path: `${BASE}/:id`,
    permission: 'target.delete',
    status: 204,
    errors: [401, 403, 404, 409],
    subject: 'deployment-dispatch.v1.delete-target',
    response: null,
    audit: 'target.deleted',
    payload: ({ params }) => ({ id: params.id }),
  }),
  /** Connects out to the target's stored endpoint, so it needs target.edit (who can set the endpoint). */
  declareRoute({
    method: 'POST',
    path: `${BASE}/:id/test`,
    permission: 'target.edit',
    status: 200,
    errors: [401, 403, 404],
    subject: 'deployment-dispatch.v1.test-target',
    response: 'TargetTestResult',
    audit: 'target.tested',
    payload: ({ params }) => ({ id: params.id }),
  }),
];
