import { readFileSync } from 'node:fs';
import { createServer, Server, ServerOptions } from 'node:https';
import { AddressInfo } from 'node:net';
import { createTlsFixture, TlsFixture } from '@certlane/testing';
import { AgentApiClient } from './agent-api-client';
import { ApiError, ApiNetworkError } from './api-errors';
import { HttpsJsonClient } from './https-json-client';

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

type Answer = { status: number; body: string };

/** A loopback HTTPS server that records each request and answers with `answer`. */
async function startServer(
  tls: TlsFixture,
  answer: (seen: Seen) => Answer,
  options: ServerOptions = {},
): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer(
    { cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath), ...options },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        seen.push(request);
        const { status, body } = answer(request);
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** The rejection of `promise`; fails the test when it resolves. */
const failureOf = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: Error) => error,
  );

describe(HttpsJsonClient.name, () => {
  let tls: TlsFixture;
  const clients: HttpsJsonClient[] = [];
  const servers: Server[] = [];
  const client = (baseUrl: string, extra: { caBundle?: string; maxResponseBytes?: number } = {}) => {
    const made = new HttpsJsonClient({ baseUrl, apiKey: 'cl_test_key', userAgent: 'spec/1', ...extra });
    clients.push(made);
    return made;
  };
  const serve = async (answer: (seen: Seen) => Answer, options?: ServerOptions) => {
    const started = await startServer(tls, answer, options);
    servers.push(started.server);
    return started;
  };

  beforeAll(async () => {
    tls = await createTlsFixture();
  });

  afterEach(async () => {
    clients.splice(0).forEach((c) => c.close());
    await Promise.all(servers.splice(0).map(close));
  });

  it('sends the bearer key and JSON to a server trusted through the CA bundle, and reads its JSON', async () => {
    const { url, seen } = await serve(() => ({
      status: 201,
      body: JSON.stringify({ status: 'accepted', job_id: 'j-1', version_id: 'v-1' }),
    }));
    const api = new AgentApiClient(client(url, { caBundle: tls.certPem }), 'web 1');

    const accepted = await api.submitCsr('c-1', 'PEM');

    expect(accepted).toMatchObject({ status: 'accepted', job_id: 'j-1', version_id: 'v-1' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/v1/agents/web%201/csr' });
    expect(seen[0].headers).toMatchObject({
      authorization: 'Bearer cl_test_key',
      'content-type': 'application/json',
      'user-agent': 'spec/1',
    });
    expect(JSON.parse(seen[0].body)).toEqual({ csr_pem: 'PEM', certificate_id: 'c-1' });
  });

  it('turns an error answer into an ApiError with the API error code, message and details', async () => {
    const { url } = await serve(() => ({
      status: 404,
      body: JSON.stringify({
        code: 'certificate_key_not_found',
        message: 'the service holds no private key',
        details: { certificate_id: 'c-1' },
        request_id: 'req-9',
      }),
    }));
    const api = new AgentApiClient(client(url, { caBundle: tls.certPem }), 'a');

    const error = await failureOf(
      api.certificateKey('c-1', 'v-1', { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }),
    );

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 404,
      code: 'certificate_key_not_found',
      reason: 'the service holds no private key',
      details: { certificate_id: 'c-1' },
      requestId: 'req-9',
    });
    expect(error.message).not.toContain('cl_test_key');
  });

  it('refuses a self-signed server certificate that the CA bundle does not vouch for', async () => {
    const { url, seen } = await serve(() => ({ status: 200, body: '{}' }));

    const error = await failureOf(client(url).request('GET', '/api/v1/version'));

    expect(error).toBeInstanceOf(ApiNetworkError);
    expect(seen).toHaveLength(0);
  });

  it('refuses a server that speaks only TLS 1.2 (TLS 1.3 minimum)', async () => {
    const { url, seen } = await serve(() => ({ status: 200, body: '{}' }), {
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
    });

    const error = await failureOf(client(url, { caBundle: tls.certPem }).request('GET', '/api/v1/version'));

    expect(error).toBeInstanceOf(ApiNetworkError);
    expect(error.message).toMatch(/protocol|version/i);
    expect(seen).toHaveLength(0);
  });

  it('reports a refused connection as an ApiNetworkError, not an ApiError', async () => {
    const { url, server } = await serve(() => ({ status: 200, body: '{}' }));
    servers.splice(servers.indexOf(server), 1);
    await close(server);

    const error = await failureOf(client(url, { caBundle: tls.certPem }).request('GET', '/api/v1/version'));

    expect(error).toBeInstanceOf(ApiNetworkError);
    expect(error).not.toBeInstanceOf(ApiError);
  });

  it('stops reading an answer larger than the limit', async () => {
    const { url } = await serve(() => ({ status: 200, body: JSON.stringify({ pad: 'x'.repeat(10_000) }) }));

    const error = await failureOf(
      client(url, { caBundle: tls.certPem, maxResponseBytes: 1024 }).request('GET', '/api/v1/version'),
    );

    expect(error).toBeInstanceOf(ApiNetworkError);
    expect(error.message).toContain('larger than 1024 bytes');
  });

  it('reads a file answer as bytes with its media type, and cuts it at maxBytes when asked for a file', async () => {
    const body = `${'{"n":1}\n'.repeat(1000)}`;
    const { url, seen } = await serve(() => ({ status: 200, body }));
    const http = client(url, { caBundle: tls.certPem });

    const whole = await http.requestFile('GET', '/api/v1/audit/export', { accept: 'application/x-ndjson' });
    const cut = await http.requestFile('GET', '/api/v1/audit/export', {
      accept: 'application/x-ndjson',
      maxBytes: 100,
    });

    expect(seen[0].headers.accept).toBe('application/x-ndjson');
    expect(whole).toMatchObject({ status: 200, mediaType: 'application/json', truncated: false });
    expect(whole.bytes.toString('utf8')).toBe(body);
    expect(cut.truncated).toBe(true);
    expect(cut.bytes.toString('utf8')).toBe(body.slice(0, 100));
  });
});
