import type { ClientRequest, IncomingMessage } from 'node:http';
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

/** A file answer: its media type (without parameters), its bytes, and whether it was cut at the bound. */
export interface FileAnswer {
  status: number;
  mediaType: string;
  bytes: Buffer;
  truncated: boolean;
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
    const answer = await this.exchange(method, path, body, 'application/json', this.maxResponseBytes, false);
    const text = answer.bytes.toString('utf8');
    if (!text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new ApiNetworkError(`${method} ${path}: the ${answer.status} answer is not JSON`, {
        cause: error,
      });
    }
  }

  /**
   * A file or stream answer (PEM, DER, PKCS#12, NDJSON, YAML) as bytes with its media type, read
   * up to `maxBytes`: beyond it the transfer is cut and `truncated` set, so a caller can keep
   * what it has (whole NDJSON lines) or give up. Error answers reject with ApiError as usual.
   */
  requestFile(
    method: HttpMethod,
    path: string,
    options: { body?: unknown; accept: string; maxBytes?: number },
  ): Promise<FileAnswer> {
    return this.exchange(
      method,
      path,
      options.body,
      options.accept,
      options.maxBytes ?? this.maxResponseBytes,
      true,
    );
  }

  /**
   * A streamed answer (the audit export's NDJSON), unbounded: the caller reads it as it arrives.
   * A non-2xx answer is read (bounded) and rejects with its ApiError.
   */
  async stream(
    method: HttpMethod,
    path: string,
    options: { body?: unknown; accept: string },
  ): Promise<IncomingMessage> {
    const { req, res } = await this.open(method, path, options.body, options.accept);
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return res;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.maxResponseBytes) break;
      chunks.push(chunk);
    }
    req.destroy();
    throw apiErrorFrom(
      status,
      Buffer.concat(chunks).toString('utf8'),
      `${method} ${path}`,
      headerValue(res.headers['retry-after']),
    );
  }

  private async exchange(
    method: HttpMethod,
    path: string,
    body: unknown,
    accept: string,
    maxBytes: number,
    truncate: boolean,
  ): Promise<FileAnswer> {
    const what = `${method} ${path}`;
    const { req, res } = await this.open(method, path, body, accept);
    return new Promise<FileAnswer>((resolve, reject) => {
      const fail = (message: string, cause?: unknown) =>
        reject(new ApiNetworkError(`${what}: ${message}`, cause === undefined ? undefined : { cause }));
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      const mediaType = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (truncated: boolean) => {
        if (done) return;
        done = true;
        const bytes = Buffer.concat(chunks);
        if (!ok)
          return reject(
            apiErrorFrom(status, bytes.toString('utf8'), what, headerValue(res.headers['retry-after'])),
          );
        resolve({ status, mediaType, bytes, truncated });
      };
      res.on('data', (chunk: Buffer) => {
        if (done) return;
        if (size + chunk.length > maxBytes) {
          if (truncate && ok) {
            chunks.push(chunk.subarray(0, maxBytes - size));
            finish(true);
          } else {
            // Reject first: after a destroy the stream may still end, with a truncated body.
            done = true;
            fail(`the answer is larger than ${maxBytes} bytes`);
          }
          req.destroy();
          return;
        }
        size += chunk.length;
        chunks.push(chunk);
      });
      res.on('end', () => finish(false));
      res.on('error', (error) => {
        if (!done) {
          done = true;
          fail(error.message, error);
        }
      });
      req.on('error', (error) => {
        if (!done) {
          done = true;
          fail(error.message, error);
        }
      });
    });
  }

  /** Sends the request; resolves once the answer's headers arrive. */
  private open(
    method: HttpMethod,
    path: string,
    body: unknown,
    accept: string,
  ): Promise<{ req: ClientRequest; res: IncomingMessage }> {
    const what = `${method} ${path}`;
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
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
        (res) => resolve({ req, res }),
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (error) => reject(new ApiNetworkError(`${what}: ${error.message}`, { cause: error })));
      if (payload) req.write(payload);
      req.end();
    });
  }
}

const headerValue = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;
