import { AgentHeartbeatBody } from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

/** An agent's heartbeat (spec 4.7, ADR 0026), served by deployment-dispatch. */
export const AGENT_ROUTES = [
  declareRoute({
    method: 'POST',
    path: '/api/v1/agents/:id/heartbeat',
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
