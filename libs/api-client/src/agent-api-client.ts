import type {
  AgentCertificateDto,
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
import type { HttpsJsonClient } from './https-json-client';

/** The job status report's `error` is cut to this many characters (the route's limit). */
export const AGENT_REPORT_ERROR_MAX = 2000;

/**
 * The routes an agent calls, under /api/v1/agents/{id} (spec 4.7): the heartbeat, the four work
 * routes (ADR 0027) and the key release (ADR 0033).
 */
export class AgentApiClient {
  private readonly prefix: string;

  constructor(
    private readonly http: HttpsJsonClient,
    agentId: string,
  ) {
    this.prefix = `/api/v1/agents/${encodeURIComponent(agentId)}`;
  }

  heartbeat(facts: AgentHeartbeatBody): Promise<AgentDto> {
    return this.http.request<AgentDto>('POST', `${this.prefix}/heartbeat`, facts);
  }

  work(): Promise<AgentWorkResponse> {
    return this.http.request<AgentWorkResponse>('GET', `${this.prefix}/work`);
  }

  submitCsr(certificateId: string, csrPem: string): Promise<AgentCsrAccepted> {
    const body: SubmitAgentCsrBody = { csr_pem: csrPem, certificate_id: certificateId };
    return this.http.request<AgentCsrAccepted>('POST', `${this.prefix}/csr`, body);
  }

  /** The latest version, or `versionId`. */
  certificate(certificateId: string, versionId?: string | null): Promise<AgentCertificateDto> {
    const query = versionId ? `?version_id=${encodeURIComponent(versionId)}` : '';
    return this.http.request<AgentCertificateDto>(
      'GET',
      `${this.prefix}/certificates/${encodeURIComponent(certificateId)}${query}`,
    );
  }

  /** A server-generated key, wrapped as a JWE to `recipientPublicJwk` (ADR 0033). */
  certificateKey(
    certificateId: string,
    versionId: string,
    recipientPublicJwk: RecipientPublicJwk,
  ): Promise<AgentKeyDto> {
    const body: AgentKeyBody = { recipient_public_jwk: recipientPublicJwk, version_id: versionId };
    return this.http.request<AgentKeyDto>(
      'POST',
      `${this.prefix}/certificates/${encodeURIComponent(certificateId)}/key`,
      body,
    );
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
    return this.http.request<JobDto>('POST', `${this.prefix}/jobs/${encodeURIComponent(jobId)}/status`, body);
  }
}
