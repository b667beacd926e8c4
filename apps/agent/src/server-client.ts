import { AgentApiClient, ApiError, DiscoveryWalk, HttpsJsonClient } from '@certlane/api-client';
import type {
  AgentCertificateDto,
  AgentDiscoveryAccepted,
  AgentDiscoveryFinding,
  AgentCsrAccepted,
  AgentKeyDto,
  AgentReportStatus,
  AgentVerificationReport,
  AgentWorkResponse,
  RecipientPublicJwk,
} from '@certlane/contracts';
import type { AgentConfig } from './config';

/** What the agent says about its host on each heartbeat (spec 4.7). */
export interface HostFacts {
  version: string;
  hostname: string;
  os: string;
  architecture: string;
  ip_address?: string;
}

/** The server as the agent sees it: the heartbeat, the four work routes (ADR 0027), the key fetch (ADR 0033) and the discovery push (ADR 0063). */
export interface AgentServerClient {
  heartbeat(facts: HostFacts): Promise<void>;
  work(): Promise<AgentWorkResponse>;
  submitCsr(certificateId: string, csrPem: string): Promise<AgentCsrAccepted>;
  certificate(certificateId: string, versionId?: string | null): Promise<AgentCertificateDto>;
  /** A server-generated key, wrapped as a JWE to `recipientPublicJwk` (ADR 0033). */
  certificateKey(
    certificateId: string,
    versionId: string,
    recipientPublicJwk: RecipientPublicJwk,
  ): Promise<AgentKeyDto>;
  reportStatus(
    jobId: string,
    status: AgentReportStatus,
    error?: string,
    verification?: AgentVerificationReport,
  ): Promise<void>;
  /** Certificates found by filesystem discovery (ADR 0063): public certificates only. */
  pushDiscovery(findings: AgentDiscoveryFinding[], walk?: DiscoveryWalk): Promise<AgentDiscoveryAccepted>;
}

/**
 * The server says this agent is gone: 410 (retired) or 401 (its key was revoked at retirement,
 * ADR 0026). The agent stops.
 */
export class AgentGoneError extends Error {
  constructor(readonly status: 401 | 410) {
    super(
      status === 410
        ? 'the server says this agent is retired (HTTP 410)'
        : 'the server no longer accepts this agent key (HTTP 401): the agent was retired or its key revoked',
    );
  }
}

/** 401 and 410 mean the agent is gone; every other failure is the lib's ApiError or ApiNetworkError. */
function goneOr(error: unknown): never {
  if (error instanceof ApiError && (error.status === 401 || error.status === 410)) {
    throw new AgentGoneError(error.status);
  }
  throw error;
}

/** The agent's routes through @certlane/api-client (HTTPS only, TLS 1.3, SERVICE_SERVER_CA_BUNDLE_PATH). */
export class HttpsAgentServerClient implements AgentServerClient {
  private readonly http: HttpsJsonClient;
  private readonly api: AgentApiClient;

  constructor(
    config: Pick<AgentConfig, 'serverUrl' | 'agentId' | 'apiKey' | 'caBundle' | 'insecureSkipVerify'>,
    userAgent = 'certlane-agent',
  ) {
    this.http = new HttpsJsonClient({
      baseUrl: config.serverUrl,
      apiKey: config.apiKey,
      caBundle: config.caBundle,
      insecureSkipVerify: config.insecureSkipVerify,
      userAgent,
    });
    this.api = new AgentApiClient(this.http, config.agentId);
  }

  close(): void {
    this.http.close();
  }

  async heartbeat(facts: HostFacts): Promise<void> {
    await this.api.heartbeat(facts).catch(goneOr);
  }

  work(): Promise<AgentWorkResponse> {
    return this.api.work().catch(goneOr);
  }

  submitCsr(certificateId: string, csrPem: string): Promise<AgentCsrAccepted> {
    return this.api.submitCsr(certificateId, csrPem).catch(goneOr);
  }

  certificate(certificateId: string, versionId?: string | null): Promise<AgentCertificateDto> {
    return this.api.certificate(certificateId, versionId).catch(goneOr);
  }

  certificateKey(
    certificateId: string,
    versionId: string,
    recipientPublicJwk: RecipientPublicJwk,
  ): Promise<AgentKeyDto> {
    return this.api.certificateKey(certificateId, versionId, recipientPublicJwk).catch(goneOr);
  }

  async reportStatus(
    jobId: string,
    status: AgentReportStatus,
    error?: string,
    verification?: AgentVerificationReport,
  ): Promise<void> {
    await this.api.reportStatus(jobId, status, error, verification).catch(goneOr);
  }

  pushDiscovery(findings: AgentDiscoveryFinding[], walk?: DiscoveryWalk): Promise<AgentDiscoveryAccepted> {
    return this.api.pushDiscovery(findings, walk).catch(goneOr);
  }
}
