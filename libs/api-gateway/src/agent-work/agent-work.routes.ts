import {
  AgentCertificateQuery,
  AgentKeyBody,
  ReportAgentJobStatusBody,
  SubmitAgentCsrBody,
} from '@certlane/contracts';
import { declareRoute } from '../routes/route-declaration';

const AGENT = '/api/v1/agents/:id';

/**
 * The agent work protocol (spec 4.7, ADR 0027) under /api/v1/agents/{id}, served by the issuance
 * service, which owns jobs (ADR 0024). Every route answers only agent `:id` itself, or an admin
 * (`ownWork`, checked before the body or query is read).
 */
export const AGENT_WORK_ROUTES = [
  /** The poll for work: pending deployments and jobs awaiting its CSR. */
  declareRoute({
    method: 'GET',
    path: `${AGENT}/work`,
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
  /** 202: the CSR was checked and issued; the job is Completed and the version stored. */
  declareRoute({
    method: 'POST',
    path: `${AGENT}/csr`,
    permission: 'agent.csr.submit',
    status: 202,
    errors: [400, 401, 403, 404, 409, 413],
    subject: 'issuance.v1.submit-agent-csr',
    body: SubmitAgentCsrBody,
    response: 'AgentCsrAccepted',
    audit: 'job.csr_submitted',
    ownWork: true,
    payload: ({ params, body }) => ({ ...body, agent_id: params.id }),
  }),
  /** The issued certificate (current version, or `?version_id=`) with its chain; never a key. */
  declareRoute({
    method: 'GET',
    path: `${AGENT}/certificates/:certId`,
    permission: 'agent.work.poll',
    status: 200,
    errors: [400, 401, 403, 404],
    subject: 'issuance.v1.get-agent-certificate',
    query: AgentCertificateQuery,
    response: 'AgentCertificateDto',
    audit: null,
    ownWork: true,
    payload: ({ params, query }) => ({ ...query, agent_id: params.id, certificate_id: params.certId }),
  }),
  /**
   * A server-generated private key (SERVICE_KEYGEN_MODE=server), wrapped as a JWE to the ephemeral
   * P-256 key in the body (ADR 0033); never the plaintext. Audited by issuance.
   */
  declareRoute({
    method: 'POST',
    path: `${AGENT}/certificates/:certId/key`,
    permission: 'agent.key.fetch',
    status: 200,
    errors: [400, 401, 403, 404, 413],
    subject: 'issuance.v1.release-agent-certificate-key',
    body: AgentKeyBody,
    response: 'AgentKeyDto',
    audit: 'certificate.key_released',
    ownWork: true,
    payload: ({ params, body }) => ({ ...body, agent_id: params.id, certificate_id: params.certId }),
  }),
  /** The job machine's `report` event: Running, Completed or Failed (with `error`). */
  declareRoute({
    method: 'POST',
    path: `${AGENT}/jobs/:jobId/status`,
    permission: 'agent.job.report',
    status: 200,
    errors: [400, 401, 403, 404, 409, 413],
    subject: 'issuance.v1.report-agent-job-status',
    body: ReportAgentJobStatusBody,
    response: 'JobDto',
    audit: 'job.status_reported',
    ownWork: true,
    payload: ({ params, body }) => ({ ...body, agent_id: params.id, job_id: params.jobId }),
  }),
];
