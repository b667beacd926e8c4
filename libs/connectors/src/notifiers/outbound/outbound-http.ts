import { lookup } from 'node:dns/promises';
import { Agent as HttpAgent, ClientRequest, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { Cidr } from '@certlane/network-safety';
import { refusedAddress } from './reserved-addresses';

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, at most `maxResponseBytes` of it. */
  body: string;
}

export interface OutboundRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** How notifiers reach the outside: one POST, address-checked at dial time, timed out, capped. */
export interface OutboundHttp {
  send(request: OutboundRequest): Promise<OutboundResponse>;
  /** Resolves a host once and checks the address (for non-HTTP dials such as SMTP): dial what it returns. */
  checkedAddress(host: string): Promise<string>;
}

export class OutboundRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefused';
  }
}

export interface GuardedHttpOptions {
  /** Reserved networks an operator re-admits (SERVICE_NOTIFIER_ALLOWED_NETWORKS). */
  allowed: readonly Cidr[];
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Extra CA certificates for https receivers (SERVICE_SERVER_CA_BUNDLE_PATH). */
  ca?: string[];
  /**
   * Keep connections open between sends, pooled per destination and checked address (a pooled
   * socket was dialled to an address that passed the check). Off: a new connection per send.
   */
  keepAlive?: boolean;
  /** Resolves a host name; tests swap it to prove the check holds for what is dialled. */
  resolve?: (host: string) => Promise<{ address: string; family: number }>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
/** Connection pools kept (one per destination and address); the oldest is closed beyond this. */
const MAX_POOLS = 256;
/** Open connections per pool (per-notifier concurrency is at most 16). */
const SOCKETS_PER_POOL = 16;

/**
 * The guarded client: the host name is resolved once, the address is checked against the
 * reserved ranges (unless allow-listed), and the connection is made to that very address (the
 * socket's lookup answers with it), so a DNS answer that changes between check and dial (DNS
 * rebinding) cannot lead elsewhere. TLS still verifies the certificate for the host name.
 */
export class GuardedHttp implements OutboundHttp {
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly resolve: (host: string) => Promise<{ address: string; family: number }>;
  private readonly pools = new Map<string, HttpAgent>();

  constructor(private readonly options: GuardedHttpOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.resolve = options.resolve ?? ((host) => lookup(host, { verbatim: true }));
  }

  /** Resolution within the client's timeout too: a resolver that never answers cannot hold a send. */
  async checkedAddress(hostname: string): Promise<string> {
    return (await this.checked(hostname, AbortSignal.timeout(this.timeoutMs))).address;
  }

  /**
   * The host's checked address, resolved within `deadline`. The lookup itself cannot be cancelled
   * (getaddrinfo runs on libuv's thread pool), but the send stops waiting for it.
   */
  private async checked(
    hostname: string,
    deadline: AbortSignal,
  ): Promise<{ address: string; family: number }> {
    const host = hostname.replace(/^\[|\]$/g, '');
    const { address, family } = isIP(host)
      ? { address: host, family: isIP(host) }
      : await untilAborted(this.resolve(host), deadline, () => this.unresolved(hostname));
    if (refusedAddress(address, this.options.allowed))
      throw new OutboundRefused(
        `${hostname} resolves to ${address}, a reserved address that is not allow-listed`,
      );
    return { address, family };
  }

  private unresolved(hostname: string): Error {
    return new Error(`${hostname} was not resolved within ${this.timeoutMs} ms`);
  }

  /** Closes the pooled connections. */
  close(): void {
    for (const pool of this.pools.values()) pool.destroy();
    this.pools.clear();
  }

  private pool(url: URL, address: string): HttpAgent | false {
    if (!this.options.keepAlive) return false;
    const key = `${url.protocol}//${url.host}@${address}`;
    let pool = this.pools.get(key);
    if (!pool) {
      const options = { keepAlive: true, maxSockets: SOCKETS_PER_POOL, maxFreeSockets: SOCKETS_PER_POOL };
      pool = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
      this.pools.set(key, pool);
      if (this.pools.size > MAX_POOLS) {
        const [oldest, agent] = this.pools.entries().next().value as [string, HttpAgent];
        agent.destroy();
        this.pools.delete(oldest);
      }
    }
    return pool;
  }

  /**
   * One request with its whole answer within the timeout: a deadline, not only an idle timer, so a
   * receiver that trickles bytes cannot hold the sweep (and its row locks) for longer. The
   * deadline starts before the host is resolved: resolution, connection and answer share it.
   */
  async send(request: OutboundRequest): Promise<OutboundResponse> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      return await this.sendOnce(request, true, deadline);
    } catch (error) {
      // A kept-alive connection the receiver closed while idle fails before any answer: once
      // more on a new connection (the Node.js documented pattern for reused sockets).
      if (error instanceof StaleConnection && !deadline.aborted)
        return this.sendOnce(request, false, deadline);
      throw error;
    }
  }

  private async sendOnce(
    request: OutboundRequest,
    mayReuse: boolean,
    deadline: AbortSignal,
  ): Promise<OutboundResponse> {
    const url = new URL(request.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new OutboundRefused(`${url.protocol} URLs are not allowed`);
    const { address, family } = await this.checked(url.hostname, deadline);
    const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
      if ((lookupOptions as { all?: boolean }).all)
        (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
          { address, family },
        ]);
      else callback(null, address, family);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const late = () => new Error(`no complete answer from ${url.host} within ${this.timeoutMs} ms`);
    return new Promise<OutboundResponse>((resolve, reject) => {
      const req = send(
        url,
        {
          method: request.method,
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          lookup: pinned,
          agent: mayReuse ? this.pool(url, address) : false,
          timeout: this.timeoutMs,
          signal: deadline,
          ...(url.protocol === 'https:' ? { ca: this.options.ca, minVersion: 'TLSv1.2' as const } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size >= this.maxResponseBytes) return;
            chunks.push(chunk.subarray(0, this.maxResponseBytes - size));
            size += chunk.length;
            if (size >= this.maxResponseBytes) res.destroy();
          });
          const done = () =>
            deadline.aborted
              ? reject(late())
              : resolve({
                  status: res.statusCode ?? 0,
                  headers: res.headers,
                  body: Buffer.concat(chunks).toString('utf8'),
                });
          res.on('end', done);
          res.on('close', done);
          res.on('error', (error) => reject(deadline.aborted ? late() : error));
        },
      );
      req.on('timeout', () =>
        req.destroy(new Error(`no answer from ${url.host} within ${this.timeoutMs} ms`)),
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (deadline.aborted) reject(late());
        else reject(staleConnection(req, error) ? new StaleConnection(error.message) : error);
      });
      req.end(request.body);
    });
  }
}

class StaleConnection extends Error {}

/** `work`'s result, or `failure()` as soon as `signal` aborts (whichever comes first). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, failure: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(failure());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(failure());
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function staleConnection(req: ClientRequest, error: NodeJS.ErrnoException): boolean {
  return req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
}

/** Retry-After as seconds (delta-seconds or an HTTP date), undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | string[] | undefined, now: Date): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}

/** 4xx answers that say "later", not "never" (RFC 9110 15.5.9, RFC 8470 5.2, RFC 6585 4). */
const RETRYABLE_CLIENT_ERRORS = new Set([408, 425, 429]);

/**
 * The common reading of an HTTP answer: 2xx is delivered; another 4xx a final failure (the
 * receiver refused the request itself: PagerDuty's 400 "Retry? No"); anything else a failure to
 * retry.
 */
export function httpOutcome(
  response: OutboundResponse,
  now: Date,
): { ok: true } | { ok: false; error: string; retryAfterSeconds?: number; final?: boolean } {
  if (response.status >= 200 && response.status < 300) return { ok: true };
  const snippet = response.body.replace(/\s+/g, ' ').trim().slice(0, 200);
  const retryAfter =
    response.status === 429 || response.status === 503
      ? retryAfterSeconds(response.headers['retry-after'], now)
      : undefined;
  const final =
    response.status >= 400 && response.status < 500 && !RETRYABLE_CLIENT_ERRORS.has(response.status);
  return {
    ok: false,
    error: `HTTP ${response.status}${snippet ? `: ${snippet}` : ''}`,
    ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
    ...(final ? { final } : {}),
  };
}
