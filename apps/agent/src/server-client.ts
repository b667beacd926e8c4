import { Agent as HttpsAgent, request } from 'node:https';
import { rootCertificates } from 'node:tls';
import type {
  AgentCertificateDto,
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

/** The server as the agent sees it: the heartbeat, the four work routes (ADR 0027) and the key fetch (ADR 0033). */
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
}

/** An answer other than 2xx; `code` is the error body's code when it has one. */
export class ServerError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
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

const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 30_000;

/** HTTPS only, TLS 1.3, the system roots plus SERVICE_SERVER_CA_BUNDLE_PATH, keep-alive. */
export class HttpsAgentServerClient implements AgentServerClient {
  private readonly agent: HttpsAgent;
  private readonly base: string;

  constructor(
    private readonly config: Pick<
      AgentConfig,
      'serverUrl' | 'agentId' | 'apiKey' | 'caBundle' | 'insecureSkipVerify'
    >,
    private readonly userAgent = 'certlane-agent',
  ) {
    this.agent = new HttpsAgent({
      keepAlive: true,
      maxSockets: 4,
      minVersion: 'TLSv1.3',
      ...(config.caBundle ? { ca: [...rootCertificates, config.caBundle] } : {}),
      rejectUnauthorized: !config.insecureSkipVerify,
    });
    this.base = `${config.serverUrl}/api/v1/agents/${encodeURIComponent(config.agentId)}`;
  }

  close(): void {
    this.agent.destroy();
  }

  async heartbeat(facts: HostFacts): Promise<void> {
    await this.call('POST', '/heartbeat', facts);
  }

  work(): Promise<AgentWorkResponse> {
    return this.call('GET', '/work') as Promise<AgentWorkResponse>;
  }

  submitCsr(certificateId: string, csrPem: string): Promise<AgentCsrAccepted> {
    return this.call('POST', '/csr', {
      csr_pem: csrPem,
      certificate_id: certificateId,
    }) as Promise<AgentCsrAccepted>;
  }

  certificate(certificateId: string, versionId?: string | null): Promise<AgentCertificateDto> {
    const query = versionId ? `?version_id=${encodeURIComponent(versionId)}` : '';
    return this.call(
      'GET',
      `/certificates/${encodeURIComponent(certificateId)}${query}`,
    ) as Promise<AgentCertificateDto>;
  }

  certificateKey(
    certificateId: string,
    versionId: string,
    recipientPublicJwk: RecipientPublicJwk,
  ): Promise<AgentKeyDto> {
    return this.call('POST', `/certificates/${encodeURIComponent(certificateId)}/key`, {
      recipient_public_jwk: recipientPublicJwk,
      version_id: versionId,
    }) as Promise<AgentKeyDto>;
  }

  async reportStatus(
    jobId: string,
    status: AgentReportStatus,
    error?: string,
    verification?: AgentVerificationReport,
  ): Promise<void> {
    await this.call('POST', `/jobs/${encodeURIComponent(jobId)}/status`, {
      status,
      ...(error !== undefined ? { error: error.slice(0, 2000) } : {}),
      ...(verification ? { verification } : {}),
    });
  }

  private call(method: string, path: string, body?: unknown): Promise<unknown> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolvePromise, reject) => {
      const req = request(
        `${this.base}${path}`,
        {
          method,
          agent: this.agent,
          timeout: REQUEST_TIMEOUT_MS,
          headers: {
            authorization: `Bearer ${this.config.apiKey}`,
            accept: 'application/json',
            'user-agent': this.userAgent,
            ...(payload
              ? { 'content-type': 'application/json', 'content-length': String(payload.length) }
              : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) {
              req.destroy(new Error('the server answer is too large'));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = undefined;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              parsed = undefined;
            }
            if (status === 401 || status === 410) return reject(new AgentGoneError(status));
            if (status < 200 || status >= 300) {
              const error = (parsed ?? {}) as { code?: unknown; message?: unknown };
              const code = typeof error.code === 'string' ? error.code : 'http_error';
              const message = typeof error.message === 'string' ? error.message : `HTTP ${status}`;
              return reject(
                new ServerError(status, code, `${method} ${path}: ${status} ${code}: ${message}`),
              );
            }
            resolvePromise(parsed);
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () =>
        req.destroy(new Error(`${method} ${path}: no answer within ${REQUEST_TIMEOUT_MS} ms`)),
      );
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  }
}
