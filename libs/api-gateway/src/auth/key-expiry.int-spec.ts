import {
  eventually,
  httpsRequest,
  startServiceProcess,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';

/**
 * Spec 5.1: an API key with `expires_at` is refused from the millisecond it expires, by every
 * gateway replica, even one that cached the key a moment before (its cache TTL is 5 s).
 */
describe('an expiring API key across two gateway replicas', () => {
  let system: TestSystem;
  let replicas: string[];

  beforeAll(async () => {
    system = await startTestSystem('keyexpiry', ['auth', 'api-gateway']);
    const second = await startServiceProcess('api-gateway', system.env, { ca: system.ca });
    system.services['api-gateway-2'] = second;
    replicas = [system.services['api-gateway'].url, second.url];
  }, 90_000);

  afterAll(async () => {
    await system?.stop();
  });

  const statusOf = async (gatewayUrl: string, key: string) =>
    (
      await httpsRequest(`${gatewayUrl}/api/v1/auth/me`, {
        ca: system.ca,
        headers: { authorization: `Bearer ${key}` },
      })
    ).status;

  it('is accepted by both replicas until it expires and refused by both from then on', async () => {
    const expiresAt = Date.now() + 2000;
    const created = await httpsRequest(`${replicas[0]}/api/v1/auth/api-keys`, {
      method: 'POST',
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'expiring', expires_at: new Date(expiresAt).toISOString() }),
    });
    expect(created.status).toBe(201);
    const { key } = created.json() as { key: string };

    // Both replicas authenticate the key now and cache it (the TTL would keep it 5 s longer).
    for (const gateway of replicas) expect(await statusOf(gateway, key)).toBe(200);

    await eventually(async () => Date.now() >= expiresAt, 'the key to expire', 5000);
    const checkedAt = Date.now();
    for (const gateway of replicas) expect(await statusOf(gateway, key)).toBe(401);
    // Well before a TTL-bound cache entry would have lapsed.
    expect(checkedAt - expiresAt).toBeLessThan(1000);
  });
});
