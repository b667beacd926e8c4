import { AgentHeartbeatBody, ListCertificatesRequest, RequestOf, RequestSubject } from '@certlane/contracts';
import { validateDto } from '@certlane/platform';
import { optionalBody } from '../certificates/request-flags';

/**
 * A gateway route that only checks its caller and forwards to one bus subject, declared for the
 * fast lane (ADR 0035). Each one stands for a Nest route with the same method, path and
 * permission (fast-lane.int-spec.ts holds them to it); the controller stays the reference.
 */
export interface ForwardingRoute<S extends RequestSubject = RequestSubject> {
  method: 'GET' | 'POST';
  /** The Nest route's Express pattern; also the route label of the metrics. */
  path: string;
  permission: string;
  /** The success status (the controller's @HttpCode or Nest's default). */
  status: number;
  subject: S;
  /** The agent work rule (assertOwnWork): only the agent of `:id`, or an admin. */
  ownWork?: boolean;
  /** The controller's @RetiredAgentAnswered(): retired agent `:id`'s own key gets 410, not 401. */
  retiredAgent?: boolean;
  /** Whether the route reads a query string (the controller's @Query()); others leave one to Express. */
  query?: boolean;
  /**
   * Whether concurrent requests of the route travel to their service together (RequestCoalescer,
   * ADR 0036): for the small, frequent requests of an agent fleet.
   */
  coalesce?: boolean;
  /**
   * The bus payload from the path parameters, the parsed body and the parsed query string (as
   * Express's `simple` query parser gives it), validated as the controller does.
   */
  payload(
    params: Readonly<Record<string, string>>,
    body: unknown,
    query: Record<string, unknown>,
  ): RequestOf<S> | Promise<RequestOf<S>>;
}

const route = <S extends RequestSubject>(definition: ForwardingRoute<S>): ForwardingRoute =>
  definition as unknown as ForwardingRoute;

/** The hot paths: a fleet's heartbeats and polls, the inventory list, and the foundation's benchmark route. */
export const FORWARDING_ROUTES: readonly ForwardingRoute[] = [
  route({
    method: 'GET',
    path: '/api/v1/certificates',
    permission: 'certificate.read',
    status: 200,
    subject: 'issuance.v1.list-certificates',
    query: true,
    payload: (_params, _body, query) => validateDto(ListCertificatesRequest, query),
  }),
  route({
    method: 'GET',
    path: '/api/v1/renewal-policies/:id',
    permission: 'renewal_policy.read',
    status: 200,
    subject: 'issuance.v1.get-renewal-policy',
    payload: ({ id }) => ({ id }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/agents/:id/work',
    permission: 'agent.work.poll',
    status: 200,
    subject: 'issuance.v1.get-agent-work',
    ownWork: true,
    coalesce: true,
    payload: ({ id }) => ({ agent_id: id }),
  }),
  route({
    method: 'POST',
    path: '/api/v1/agents/:id/heartbeat',
    permission: 'agent.heartbeat',
    status: 200,
    subject: 'deployment-dispatch.v1.agent-heartbeat',
    retiredAgent: true,
    coalesce: true,
    payload: async ({ id }, body) => ({ ...(await optionalBody(AgentHeartbeatBody, { body })), id }),
  }),
];
