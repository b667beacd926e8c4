import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { ApiError } from '@certlane/api-client';
import { createTlsFixture, TlsFixture } from '@certlane/testing';
import { AgentGoneError, HttpsAgentServerClient } from './server-client';

/** The rejection of `promise`; fails the test when it resolves. */
const failureOf = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: Error) => error,
  );

describe(HttpsAgentServerClient.name, () => {
  let tls: TlsFixture;
  let server: Server;
  let client: HttpsAgentServerClient;
  let answer: { status: number; body: unknown };

  beforeAll(async () => {
    tls = await createTlsFixture();
    server = createServer(
      { cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) },
      (req, res) => {
        req.resume();
        req.on('end', () =>
          res
            .writeHead(answer.status, { 'content-type': 'application/json' })
            .end(JSON.stringify(answer.body)),
        );
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new HttpsAgentServerClient({
      serverUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      agentId: 'web-1',
      apiKey: 'cl_agent_key',
      caBundle: tls.certPem,
      insecureSkipVerify: false,
    });
  });

  afterAll(async () => {
    client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each([410, 401] as const)(
    'turns HTTP %i into AgentGoneError (ADR 0026: the agent stops)',
    async (status) => {
      answer = { status, body: { code: status === 410 ? 'gone' : 'unauthorized', message: 'no' } };
      const error = await failureOf(client.work());
      expect(error).toBeInstanceOf(AgentGoneError);
      expect((error as AgentGoneError).status).toBe(status);
    },
  );

  it('leaves any other refusal an ApiError with its code', async () => {
    answer = { status: 400, body: { code: 'csr_invalid', message: 'CN mismatch' } };
    const error = await failureOf(client.submitCsr('c-1', 'PEM'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'csr_invalid', reason: 'CN mismatch' });
  });
});
