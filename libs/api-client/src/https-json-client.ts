import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request } from 'node:https';
import { rootCertificates } from 'node:tls';
import { apiErrorFrom, ApiClientConfigError, ApiNetworkError } from './api-errors';

export interface ApiClientOptions {
  /** https://host[:port] of the API gateway; http:// is refused. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; never logged, never in an error. Empty: no header (public routes). */
  apiKey: string;
  /**
   * PEM certificates trusted in addition to the system roots: the content of the caller's
   * SERVICE_SERVER_CA_BUNDLE_PATH (the library reads no environment and no file).
   */
  caBundle?: string;
  /** Development only: the server certificate is not verified. */
  insecureSkipVerify?: boolean;
  userAgent?: string;
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A file answer: its status, media type and bytes. */
export interface FileAnswer {
  status: number;
  contentType: string;
  content: Buffer;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The https:// origin of `raw` without a trailing slash; anything else is refused before a byte is sent. */
export function httpsBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiClientConfigError(`the server URL "${raw}" is not a URL (expected https://host[:port])`);
  }
  if (url.protocol === 'http:') {
    throw new ApiClientConfigError(
      `the server URL ${url.origin} uses http://: the API is only spoken over TLS, use its https:// URL`,
    );
  }
  if (url.protocol !== 'https:') {
    throw new ApiClientConfigError(`the server URL must be an https:// URL (got ${url.protocol}//)`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * JSON over HTTPS to the Certlane API: TLS 1.3 minimum, the system roots plus `caBundle`,
 * keep-alive, bearer API key. Non-2xx answers reject with ApiError, failures to get an answer
 * with ApiNetworkError.
 */
export class HttpsJsonClient {
  private readonly agent: HttpsAgent;
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: ApiClientOptions) {
    this.base = httpsBaseUrl(options.baseUrl);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.agent = new HttpsAgent({
      keepAlive: true,
      maxSockets: 4,
      minVersion: 'TLSv1.3',
      ...(options.caBundle ? { ca: [...rootCertificates, options.caBundle] } : {}),
      rejectUnauthorized: !options.insecureSkipVerify,
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  /** `path` starts with "/" and is already encoded; the answer's JSON (undefined when empty). */
  async request<T>(method: HttpMethod, path: string, body?: unknown): Promise<T> {
    const what = `${method} ${path}`;
    const res = await this.open(method, path, body, 'application/json');
    const status = res.statusCode ?? 0;
    const text = (await this.readAll(res, what)).toString('utf8');
    if (status < 200 || status >= 300) throw apiErrorFrom(status, text, what);
    if (!text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new ApiNetworkError(`${what}: the ${status} answer is not JSON`, { cause: error });
    }
  }

  /** A file answer (PEM, PKCS#12, DER CRL, OCSP), read whole up to `maxResponseBytes`. */
  async download(method: HttpMethod, path: string, body?: unknown): Promise<FileAnswer> {
    const what = `${method} ${path}`;
    const res = await this.open(method, path, body, '*/*');
    const content = await this.readAll(res, what);
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) throw apiErrorFrom(status, content.toString('utf8'), what);
    return { status, contentType: String(res.headers['content-type'] ?? ''), content };
  }

  /**
   * A streamed answer (the audit export's NDJSON), unbounded: the caller reads it as it arrives.
   * A non-2xx answer is read (bounded) and rejects with its ApiError.
   */
  async stream(method: HttpMethod, path: string, body?: unknown): Promise<IncomingMessage> {
    const what = `${method} ${path}`;
    const res = await this.open(method, path, body, '*/*');
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return res;
    throw apiErrorFrom(status, (await this.readAll(res, what)).toString('utf8'), what);
  }

  /** Sends the request; resolves with the answer once its headers arrive. */
  private open(method: HttpMethod, path: string, body: unknown, accept: string): Promise<IncomingMessage> {
    const what = `${method} ${path}`;
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        `${this.base}${path}`,
        {
          method,
          agent: this.agent,
          timeout: this.timeoutMs,
          headers: {
            ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
            accept,
            'user-agent': this.options.userAgent ?? 'certlane-api-client',
            ...(payload
              ? { 'content-type': 'application/json', 'content-length': String(payload.length) }
              : {}),
          },
        },
        (res) => {
          // Once the answer has started, a socket timeout ends the read, not the request.
          req.setTimeout(0);
          resolve(res);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (error) => reject(new ApiNetworkError(`${what}: ${error.message}`, { cause: error })));
      if (payload) req.write(payload);
      req.end();
    });
  }

  /** The whole answer body, refused beyond `maxResponseBytes`. */
  private readAll(res: IncomingMessage, what: string): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const fail = (message: string, cause?: unknown) =>
        reject(new ApiNetworkError(`${what}: ${message}`, cause === undefined ? undefined : { cause }));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > this.maxResponseBytes) {
          // Reject first: after a destroy the stream may still end, with a truncated body.
          fail(`the answer is larger than ${this.maxResponseBytes} bytes`);
          res.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve(Buffer.concat(chunks)));
      res.on('error', (error) => fail(error.message, error));
      res.on('aborted', () => fail('the connection closed before the answer ended'));
    });
  }
}
