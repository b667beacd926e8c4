import type {
  AgentCertificateDto,
  AgentDiscoveryAccepted,
  AgentDiscoveryFinding,
  AgentCsrAccepted,
  AgentDto,
  AgentHeartbeatBody,
  AgentKeyBody,
  AgentKeyDto,
  AgentReportStatus,
  AgentVerificationReport,
  AgentWorkResponse,
  JobDto,
  RecipientPublicJwk,
  ReportAgentJobStatusBody,
  SubmitAgentCsrBody,
} from '@certlane/contracts';
import { ApiClient } from './api-client';
import type { HttpsJsonClient } from './https-json-client';

/** The job status report's `error` is cut to this many characters (the route's limit). */
export const AGENT_REPORT_ERROR_MAX = 2000;

/**
 * The routes an agent calls, under /api/v1/agents/{id} (spec 4.7): the heartbeat, the four work
 * routes (ADR 0027) and the key release (ADR 0033), through the operations of the API description
 * (ApiClient), so the contracts types it returns are checked against the document's.
 */
/** The walk a discovery push belongs to; `complete` on its last push when it read everything (ADR 0063). */
export interface DiscoveryWalk {
  id: string;
  complete: boolean;
}

export class AgentApiClient {
  private readonly api: ApiClient;

  constructor(
    http: HttpsJsonClient,
    private readonly agentId: string,
  ) {
    this.api = new ApiClient(http);
  }

  heartbeat(facts: AgentHeartbeatBody): Promise<AgentDto> {
    return this.api.call('agentHeartbeat', { path: { id: this.agentId }, body: facts });
  }

  work(): Promise<AgentWorkResponse> {
    return this.api.call('getAgentWork', { path: { id: this.agentId } });
  }

  submitCsr(certificateId: string, csrPem: string): Promise<AgentCsrAccepted> {
    const body: SubmitAgentCsrBody = { csr_pem: csrPem, certificate_id: certificateId };
    return this.api.call('submitAgentCsr', { path: { id: this.agentId }, body });
  }

  /** The latest version, or `versionId`. */
  certificate(certificateId: string, versionId?: string | null): Promise<AgentCertificateDto> {
    return this.api.call('getAgentCertificate', {
      path: { id: this.agentId, certId: certificateId },
      ...(versionId ? { query: { version_id: versionId } } : {}),
    });
  }

  /** A server-generated key, wrapped as a JWE to `recipientPublicJwk` (ADR 0033). */
  certificateKey(
    certificateId: string,
    versionId: string,
    recipientPublicJwk: RecipientPublicJwk,
  ): Promise<AgentKeyDto> {
    const body: AgentKeyBody = { recipient_public_jwk: recipientPublicJwk, version_id: versionId };
    return this.api.call('releaseAgentCertificateKey', {
      path: { id: this.agentId, certId: certificateId },
      body,
    });
  }

  reportStatus(
    jobId: string,
    status: AgentReportStatus,
    error?: string,
    verification?: AgentVerificationReport,
  ): Promise<JobDto> {
    const body: ReportAgentJobStatusBody = {
      status,
      ...(error !== undefined ? { error: error.slice(0, AGENT_REPORT_ERROR_MAX) } : {}),
      ...(verification ? { verification } : {}),
    };
    return this.api.call('reportAgentJobStatus', { path: { id: this.agentId, jobId }, body });
  }

  /** Certificates found by the agent's filesystem discovery (spec 4.7 note; ADR 0063). */
  pushDiscovery(findings: AgentDiscoveryFinding[], walk?: DiscoveryWalk): Promise<AgentDiscoveryAccepted> {
    const body = walk ? { findings, walk_id: walk.id, walk_complete: walk.complete } : { findings };
    return this.api.call('pushAgentDiscovery', { path: { id: this.agentId }, body });
  }
}
