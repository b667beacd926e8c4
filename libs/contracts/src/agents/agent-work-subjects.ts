import { RequestContract, shape } from '../messaging/contract';
import { JobDto } from '../jobs/job.dto';
import {
  AgentCertificateDto,
  AgentCertificateRequest,
  AgentCsrAccepted,
  AgentKeyDto,
  AgentKeyRequest,
  AgentWorkRequest,
  AgentWorkResponse,
  ReportAgentJobStatusRequest,
  SubmitAgentCsrRequest,
} from './agent-work.dto';

/** The agent work protocol (spec 4.7, ADR 0027): served by issuance, which owns jobs. */
export const agentWorkRequestContracts = {
  'issuance.v1.get-agent-work': { request: AgentWorkRequest, response: shape<AgentWorkResponse>() },
  'issuance.v1.submit-agent-csr': { request: SubmitAgentCsrRequest, response: shape<AgentCsrAccepted>() },
  'issuance.v1.get-agent-certificate': {
    request: AgentCertificateRequest,
    response: shape<AgentCertificateDto>(),
  },
  /** A server-generated key, wrapped to the agent's ephemeral key (ADR 0033). */
  'issuance.v1.release-agent-certificate-key': { request: AgentKeyRequest, response: shape<AgentKeyDto>() },
  'issuance.v1.report-agent-job-status': { request: ReportAgentJobStatusRequest, response: shape<JobDto>() },
} satisfies Record<string, RequestContract<object, unknown>>;
