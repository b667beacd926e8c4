import { CreateRoutingRuleRequest, PageQuery, RoutingRuleChanges } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/routing-rules';

/** /api/v1/routing-rules (issue 22, ADR 0056): served by the notifier. */
export const ROUTING_RULE_ROUTES = [
  declareRoute({
    method: 'GET',
    path: BASE,
    permission: 'routing_rule.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'notifier.v1.list-routing-rules',
    query: PageQuery,
    response: 'Page<RoutingRuleDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  declareRoute({
    method: 'POST',
    path: BASE,
    permission: 'routing_rule.edit',
    status: 201,
    errors: [400, 401, 403, 409, 413],
    subject: 'notifier.v1.create-routing-rule',
    body: CreateRoutingRuleRequest,
    response: 'RoutingRuleDto',
    audit: 'routing_rule.created',
    payload: ({ body }) => body,
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/:id`,
    permission: 'routing_rule.read',
    status: 200,
    errors: [401, 403, 404],
    subject: 'notifier.v1.get-routing-rule',
    response: 'RoutingRuleDto',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
  declareRoute({
    method: 'PUT',
    path: `${BASE}/:id`,
    permission: 'routing_rule.edit',
    status: 200,
    errors: [400, 401, 403, 404, 413],
    subject: 'notifier.v1.update-routing-rule',
    body: RoutingRuleChanges,
    response: 'RoutingRuleDto',
    audit: 'routing_rule.updated',
    payload: ({ params, body }) => ({ ...body, id: params.id }),
  }),
  declareRoute({
    method: 'DELETE',
    path: `${BASE}/:id`,
    permission: 'routing_rule.edit',
    status: 204,
    errors: [401, 403, 404],
    subject: 'notifier.v1.delete-routing-rule',
    response: null,
    audit: 'routing_rule.deleted',
    payload: ({ params }) => ({ id: params.id }),
  }),
];
