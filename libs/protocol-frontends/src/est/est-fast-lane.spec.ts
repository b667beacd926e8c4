import { createServer, request as httpRequest, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { CertlaneLogger, installInFront, securityHeaderValues } from '@certlane/platform';
import { EstHttpRequest, EstHttpResponse } from './est-server';
import { estFastLane } from './est-fast-lane';

/**
 * The EST fast lane in front of a stand-in for Express on a real listener: what it answers as
 * EstController would, and what it leaves to Express and Nest.
 */
describe('EST fast lane', () => {
  let server: Server;
  let base: string;
  const handled: EstHttpRequest[] = [];
  const observed: string[] = [];
  const behind: string[] = [];
  const logged: unknown[] = [];
  let next: (request: EstHttpRequest) => Promise<EstHttpResponse>;
  const logger = { error: (...args: unknown[]) => logged.push(args) } as unknown as CertlaneLogger;

  beforeAll(async () => {
    server = createServer((request, response) => {
      behind.push(`${request.method} ${request.url}`);
      request.resume();
      request.on('end', () => {
        response.statusCode = 299;
        response.end('express');
      });
    });
    installInFront(
      server,
      estFastLane(
        (request) => {
          handled.push(request);
          return next(request);
        },
        (request, response, _requestId, route) =>
          response.on('finish', () => observed.push(`${request.method} ${route()} ${response.statusCode}`)),
        logger,
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    handled.length = 0;
    observed.length = 0;
    behind.length = 0;
    logged.length = 0;
    next = async () => ({
      status: 200,
      headers: {
        'Content-Type': 'application/pkcs7-mime; smime-type=certs-only',
        'Content-Transfer-Encoding': 'base64',
      },
      body: 'MIIB\r\n',
    });
  });

  const send = (path: string, method = 'GET', headers: Record<string, string> = {}, body?: string) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = httpRequest(`${base}${path}`, { method, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
        );
      });
      req.on('error', reject);
      req.end(body);
    });

  it('answers a simpleenroll as the controller: the EST answer, request id, security headers, metrics', async () => {
    const res = await send(
      '/.well-known/est/bench/simpleenroll',
      'POST',
      { 'content-type': 'application/pkcs10', authorization: 'Basic dTpw', 'x-request-id': 'req-1' },
      'MIIBcsr',
    );
    expect(res.status).toBe(200);
    expect(res.body).toBe('MIIB\r\n');
    expect(res.headers['content-type']).toBe('application/pkcs7-mime; smime-type=certs-only');
    expect(res.headers['content-transfer-encoding']).toBe('base64');
    expect(res.headers['x-request-id']).toBe('req-1');
    for (const [name, value] of securityHeaderValues()) expect(res.headers[name.toLowerCase()]).toBe(value);
    expect(handled).toEqual([
      {
        method: 'POST',
        path: '/.well-known/est/bench/simpleenroll',
        authorization: 'Basic dTpw',
        body: 'MIIBcsr',
      },
    ]);
    expect(behind).toEqual([]);
    expect(observed).toEqual(['POST /.well-known/est/*path 200']);
  });

  it('labels the mutual-TLS paths with their route and passes GETs without a body', async () => {
    const res = await send('/.well-known/est-mtls/fleet/cacerts');
    expect(res.status).toBe(200);
    expect(handled[0]).toEqual({ method: 'GET', path: '/.well-known/est-mtls/fleet/cacerts' });
    expect(observed).toEqual(['GET /.well-known/est-mtls/*path 200']);
  });

  it.each([
    ['another path', '/.well-known/estx/simpleenroll', 'POST', {}],
    ['a HEAD', '/.well-known/est/cacerts', 'HEAD', {}],
    ['a query string', '/.well-known/est/cacerts?x=1', 'GET', {}],
    ['an Origin header (CORS)', '/.well-known/est/cacerts', 'GET', { origin: 'https://gui.example' }],
    ['a body labelled JSON', '/.well-known/est/simpleenroll', 'POST', { 'content-type': 'application/json' }],
  ])('leaves %s to Express and Nest', async (_what, path, method, headers) => {
    const res = await send(path, method, headers, method === 'POST' ? '{}' : undefined);
    expect(res.status).toBe(299);
    expect(behind).toEqual([`${method} ${path}`]);
    expect(handled).toEqual([]);
  });

  it('refuses a body over the limit with the one error body (413), as the controller does', async () => {
    const res = await send(
      '/.well-known/est/simpleenroll',
      'POST',
      { 'content-type': 'application/pkcs10' },
      'A'.repeat(256 * 1024 + 1),
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: ErrorCode.PayloadTooLarge });
    expect(handled).toEqual([]);
  });

  it('answers an error of the EST server with the error body, and logs an unexpected one', async () => {
    next = async () => {
      throw new CertlaneError(ErrorCode.UpstreamTimeout, 'issuance did not answer');
    };
    const expected = await send('/.well-known/est/simpleenroll', 'POST', {}, 'MIIB');
    expect(expected.status).toBe(504);
    expect(expected.headers['x-request-id']).toBeDefined();
    expect(logged).toEqual([]);
    next = async () => {
      throw new Error('boom');
    };
    const unexpected = await send('/.well-known/est/simpleenroll', 'POST', {}, 'MIIB');
    expect(unexpected.status).toBe(500);
    expect(unexpected.body).not.toContain('boom');
    expect(logged).toHaveLength(1);
  });
});
