import { declareRoute } from '../routes/route-declaration';

/** The agent's poll for work (spec 4.7, ADR 0027): pending deployments and jobs awaiting its CSR. */
export const AGENT_WORK_ROUTES = [
  declareRoute({
    method: 'GET',
    path: '/api/v1/agents/:id/work',
    permission: 'agent.work.poll',
    status: 200,
    errors: [401, 403],
    subject: 'issuance.v1.get-agent-work',
    response: 'AgentWorkResponse',
    audit: null,
    ownWork: true,
    coalesce: true,
    payload: ({ params }) => ({ agent_id: params.id }),
  }),
];
