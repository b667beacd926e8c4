import { request } from 'node:http';
import {
  AcmeIdentifier,
  AcmeProblem,
  http01BodyMatches,
  http01Path,
} from '@certlane/protocol-frontends-domain';

const MAX_BODY_BYTES = 8192;

export interface Http01Options {
  port: number;
  timeoutMs: number;
}

/**
 * Where to connect for an identifier: an IP identifier is the address; `localhost` and names
 * under `.localhost` are loopback (RFC 6761 6.3), so tests need no DNS; other names go through
 * the system resolver.
 */
export function connectHost(identifier: AcmeIdentifier): string {
  if (identifier.type === 'ip') return identifier.value;
  const name = identifier.value;
  return name === 'localhost' || name.endsWith('.localhost') ? '127.0.0.1' : name;
}

/**
 * http-01 (RFC 8555 8.3): GET http://<identifier>:<port>/.well-known/acme-challenge/<token> and
 * compare the body with the key authorization. Redirects are not followed (yet): a 3xx fails.
 */
export function validateHttp01(
  identifier: AcmeIdentifier,
  token: string,
  expected: string,
  options: Http01Options,
): Promise<{ ok: true } | { ok: false; problem: AcmeProblem }> {
  const host = connectHost(identifier);
  const hostHeader =
    identifier.type === 'ip' && identifier.value.includes(':') ? `[${identifier.value}]` : identifier.value;
  const url = `http://${hostHeader}:${options.port}${http01Path(token)}`;
  return new Promise((resolve) => {
    const fail = (type: 'connection' | 'incorrectResponse' | 'unauthorized', detail: string) =>
      resolve({ ok: false, problem: new AcmeProblem(type, detail) });
    const req = request(
      {
        host,
        port: options.port,
        path: http01Path(token),
        method: 'GET',
        headers: {
          Host: options.port === 80 ? hostHeader : `${hostHeader}:${options.port}`,
          'User-Agent': 'certlane-acme-validator',
        },
        timeout: options.timeoutMs,
        agent: false,
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          return fail('unauthorized', `${url} answered HTTP ${response.statusCode}`);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            req.destroy();
            return fail('unauthorized', `${url} answered more than ${MAX_BODY_BYTES} bytes`);
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (http01BodyMatches(body, expected)) resolve({ ok: true });
          else fail('incorrectResponse', `${url} did not answer the key authorization`);
        });
        response.on('error', (error) => fail('connection', `${url}: ${error.message}`));
      },
    );
    req.on('timeout', () => {
      req.destroy();
      fail('connection', `${url} did not answer within ${options.timeoutMs} ms`);
    });
    req.on('error', (error) => fail('connection', `could not fetch ${url}: ${error.message}`));
    req.end();
  });
}
