import { Agent, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  AcmeIdentifier,
  AcmeProblem,
  http01BodyMatches,
  http01Path,
  http01RedirectTarget,
} from '@certlane/protocol-frontends-domain';

const MAX_BODY_BYTES = 8192;

export interface Http01Options {
  port: number;
  timeoutMs: number;
  /** Where an https redirect may lead (443 outside tests). */
  httpsPort?: number;
}

/**
 * Where to connect for a host name: `localhost` and names under `.localhost` are loopback
 * (RFC 6761 6.3), so tests need no DNS; other names go through the system resolver.
 */
export function connectHost(hostname: string): string {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : host;
}

/**
 * Connections to responders are kept open between validations: a host validating many names (a
 * load balancer, a fleet behind one address) is not reconnected each time.
 */
const keepAlive = new Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 30_000 });

type Fetched = { status: number; location?: string; body: string; remoteAddress?: string };

function fetchOnce(url: URL, timeoutMs: number): Promise<Fetched> {
  const secure = url.protocol === 'https:';
  const request = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: connectHost(url.hostname),
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { Host: url.host, 'User-Agent': 'certlane-acme-validator' },
        timeout: timeoutMs,
        agent: secure ? false : keepAlive,
        // The key authorization proves control; the certificate of a redirect target is not
        // checked (it may well be the one being requested), as Let's Encrypt does.
        ...(secure ? { rejectUnauthorized: false, servername: url.hostname } : {}),
      },
      (response) => {
        // Read now: a keep-alive socket goes back to the pool (and off the response) at its end.
        const remoteAddress = response.socket?.remoteAddress;
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            req.destroy();
            reject(new AcmeProblem('unauthorized', `${url.href} answered more than ${MAX_BODY_BYTES} bytes`));
          } else chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            location: response.headers.location,
            body: Buffer.concat(chunks).toString('utf8'),
            remoteAddress,
          }),
        );
        response.on('error', (error) =>
          reject(new AcmeProblem('connection', `${url.href}: ${error.message}`)),
        );
      },
    );
    req.on('timeout', () => {
      req.destroy();
      reject(new AcmeProblem('connection', `${url.href} did not answer within ${timeoutMs} ms`));
    });
    req.on('error', (error) =>
      reject(new AcmeProblem('connection', `could not fetch ${url.href}: ${error.message}`)),
    );
    req.end();
  });
}

/**
 * http-01 (RFC 8555 8.3): GET http://<identifier>:<port>/.well-known/acme-challenge/<token>,
 * following redirects within http01RedirectTarget's rules, and compare the body with the key
 * authorization.
 */
export async function validateHttp01(
  identifier: AcmeIdentifier,
  token: string,
  expected: string,
  options: Http01Options,
): Promise<({ ok: true } | { ok: false; problem: AcmeProblem }) & { remoteAddress?: string }> {
  const host =
    identifier.type === 'ip' && identifier.value.includes(':') ? `[${identifier.value}]` : identifier.value;
  let url = new URL(`http://${host}:${options.port}${http01Path(token)}`);
  try {
    for (let redirects = 0; ; redirects++) {
      const fetched = await fetchOnce(url, options.timeoutMs);
      // The last address answered: what operators see with the attempt.
      const at = fetched.remoteAddress ? { remoteAddress: fetched.remoteAddress } : {};
      if ([301, 302, 303, 307, 308].includes(fetched.status)) {
        url = http01RedirectTarget(
          fetched.location,
          url,
          { http: options.port, https: options.httpsPort ?? 443 },
          redirects,
        );
        continue;
      }
      if (fetched.status !== 200)
        return {
          ok: false,
          problem: new AcmeProblem('unauthorized', `${url.href} answered HTTP ${fetched.status}`),
          ...at,
        };
      if (http01BodyMatches(fetched.body, expected)) return { ok: true, ...at };
      return {
        ok: false,
        problem: new AcmeProblem('incorrectResponse', `${url.href} did not answer the key authorization`),
        ...at,
      };
    }
  } catch (error) {
    if (error instanceof AcmeProblem) return { ok: false, problem: error };
    throw error;
  }
}
