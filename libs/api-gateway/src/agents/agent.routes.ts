import {
  AgentHeartbeatBody,
  ListAgentsRequest,
  ListRetiredAgentsQuery,
  RegisterAgentRequest,
  RetireAgentQuery,
} from '@certlane/contracts';
import { queryFlag } from '../routes/request-flags';
import { declareRoute } from '../routes/route-declaration';

const BASE = '/api/v1/agents';

/**
 * /api/v1/agents (spec 4.7; ADR 0026): registration, list, the retired list, get, retirement and
 * the heartbeat, served by deployment-dispatch. `retired` and `summary` are listed before `:id`,
 * so the literal paths win. The work protocol routes are agent-work.routes.ts's.
 */
export const AGENT_ROUTES = [
  declareRoute({
    method: 'GET',
    path: BASE,
    permission: 'agent.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'deployment-dispatch.v1.list-agents',
    query: ListAgentsRequest,
    response: 'Page<AgentDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  /** The agent, plus its API key this once. */
  declareRoute({
    method: 'POST',
    path: BASE,
    permission: 'agent.create',
    status: 201,
    errors: [400, 401, 403, 409, 413],
    subject: 'deployment-dispatch.v1.register-agent',
    body: RegisterAgentRequest,
    response: 'AgentRegistrationResponse',
    audit: 'agent.registered',
    payload: ({ body }) => body,
    reply: (registered) => ({ ...registered.agent, api_key: registered.api_key }),
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/retired`,
    permission: 'agent.read',
    status: 200,
    errors: [400, 401, 403],
    subject: 'deployment-dispatch.v1.list-retired-agents',
    query: ListRetiredAgentsQuery,
    response: 'Page<AgentDto>',
    audit: null,
    payload: ({ query }) => query,
  }),
  /** The fleet by status, counted over every agent (the dashboard's numbers). */
  declareRoute({
    method: 'GET',
    path: `${BASE}/summary`,
    permission: 'agent.read',
    status: 200,
    errors: [401, 403],
    subject: 'deployment-dispatch.v1.get-agent-summary',
    response: 'AgentSummary',
    audit: null,
    payload: () => ({}),
  }),
  declareRoute({
    method: 'GET',
    path: `${BASE}/:id`,
    permission: 'agent.read',
    status: 200,
    errors: [401, 403, 404],
    subject: 'deployment-dispatch.v1.get-agent',
    response: 'AgentDto',
    audit: null,
    payload: ({ params }) => ({ id: params.id }),
  }),
  /** 200 with the result; 204 (no body) when the agent was already retired. */
  declareRoute({
    method: 'DELETE',
    path: `${BASE}/:id`,
    permission: 'agent.retire',
    status: 200,
    alsoStatus: { 204: null },
    errors: [400, 401, 403, 404, 409],
    subject: 'deployment-dispatch.v1.retire-agent',
    query: RetireAgentQuery,
    response: 'AgentRetirement',
    audit: 'agent_retired',
    payload: ({ params, query }) => ({
      id: params.id,
      force: queryFlag(query.force),
      ...(query.reason !== undefined ? { reason: query.reason } : {}),
    }),
    statusOf: (result) => (result.already_retired ? 204 : 200),
  }),
  declareRoute({
    method: 'POST',
    path: `${BASE}/:id/heartbeat`,
    permission: 'agent.heartbeat',
    status: 200,
    errors: [400, 401, 403, 404, 410, 413],
    subject: 'deployment-dispatch.v1.agent-heartbeat',
    body: AgentHeartbeatBody,
    optionalBody: true,
    response: 'AgentDto',
    // Only the agent's liveness facts change: an audit row per agent per minute would swamp the log.
    audit: { notAudited: 'liveness only (ADR 0026)' },
    retiredAgent: true,
    coalesce: true,
    payload: ({ params, body }) => ({ ...body, id: params.id }),
  }),
];
