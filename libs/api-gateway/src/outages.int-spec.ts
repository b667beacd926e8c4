import {
  eventually,
  httpsRequest,
  HttpsResult,
  PrivateServer,
  startPrivateNats,
  startPrivatePostgres,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';

/**
 * Fault test: the system on a Postgres and a NATS of its own, which it stops and starts again.
 * An outage of a dependency is answered 503 `service_unavailable` with Retry-After, at once (not
 * after the 5 s bus timeout); 500 is left for bugs; once the dependency is back, calls succeed.
 */
describe('answers while NATS or Postgres is down', () => {
  let nats: PrivateServer;
  let postgres: PrivateServer;
  let system: TestSystem;
  let gatewayUrl: string;
  /** A stored key nobody has used yet: checking it needs the auth service and its database. */
  let uncachedKey: string;

  const call = (path: string, key = system.env.SERVICE_AUTH_SECRET) =>
    httpsRequest(`${gatewayUrl}${path}`, { ca: system.ca, headers: { authorization: `Bearer ${key}` } });

  const timed = async (request: () => Promise<HttpsResult>) => {
    const started = Date.now();
    const response = await request();
    return { response, elapsedMs: Date.now() - started };
  };

  const expectOutageAnswer = (response: HttpsResult) => {
    expect({ status: response.status, code: (response.json() as { code: string }).code }).toEqual({
      status: 503,
      code: 'service_unavailable',
    });
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  };

  beforeAll(async () => {
    [nats, postgres] = await Promise.all([startPrivateNats(), startPrivatePostgres()]);
    system = await startTestSystem(
      'outages',
      ['auth', 'issuance', 'api-gateway'],
      { SERVICE_BUS_REQUEST_TIMEOUT: '5s' },
      { databaseServerUrl: postgres.url, natsUrl: nats.url },
    );
    gatewayUrl = system.services['api-gateway'].url;
    const created = await httpsRequest(`${gatewayUrl}/api/v1/auth/api-keys`, {
      method: 'POST',
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'outage-probe', admin: true }),
    });
    expect(created.status).toBe(201);
    uncachedKey = (created.json() as { key: string }).key;
  }, 120_000);

  afterAll(async () => {
    // Both servers are back by the end of each test; the system's database is dropped there.
    await system?.stop();
    await Promise.all([nats?.destroy(), postgres?.destroy()]);
  }, 60_000);

  it('answers 503 with Retry-After at once while NATS is down, and serves again once it is back', async () => {
    expect((await call('/api/v1/renewal-policies')).status).toBe(200);

    await nats.stop();
    // The gateway has seen its connection drop (its readiness says so) ...
    await eventually(
      async () => (await httpsRequest(`${gatewayUrl}/ready`, { ca: system.ca })).status === 503,
      'the gateway to notice that NATS is down',
      10_000,
    );
    // ... so a call that needs a service, or a key check by the auth service, fails fast.
    for (const key of [system.env.SERVICE_AUTH_SECRET, uncachedKey]) {
      const { response, elapsedMs } = await timed(() => call('/api/v1/renewal-policies', key));
      expectOutageAnswer(response);
      expect(elapsedMs).toBeLessThan(2000);
    }

    await nats.start();
    await eventually(
      async () => (await call('/api/v1/renewal-policies')).status === 200,
      'calls to succeed after NATS restarted',
      30_000,
    );
  }, 60_000);

  it('answers 503 with Retry-After, not 500, while Postgres is down, and serves again once it is back', async () => {
    expect((await call('/api/v1/renewal-policies')).status).toBe(200);

    await postgres.stop();
    // issuance reads the policies from its database; auth checks a stored key in its database.
    for (const key of [system.env.SERVICE_AUTH_SECRET, uncachedKey]) {
      const { response, elapsedMs } = await timed(() => call('/api/v1/renewal-policies', key));
      expectOutageAnswer(response);
      expect(elapsedMs).toBeLessThan(2000);
    }

    await postgres.start();
    await eventually(
      async () => (await call('/api/v1/renewal-policies', uncachedKey)).status === 200,
      'calls to succeed after Postgres restarted',
      30_000,
    );
  }, 60_000);
});
