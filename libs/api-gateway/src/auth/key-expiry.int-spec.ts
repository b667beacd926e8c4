import { createHash } from 'node:crypto';
import { connect } from 'nats';
import {
  eventually,
  httpsRequest,
  startServiceProcess,
  startTestSystem,
  testNatsUrl,
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

  it('authenticating a key sends the auth service its SHA-256, never the key (ADR 0013 amendment)', async () => {
    const created = await httpsRequest(`${replicas[0]}/api/v1/auth/api-keys`, {
      method: 'POST',
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'on-the-bus' }),
    });
    expect(created.status).toBe(201);
    const { key } = created.json() as { key: string };
    const nc = await connect({ servers: testNatsUrl().split(','), name: 'keyexpiry-listener' });
    try {
      const seen: string[] = [];
      const subscription = nc.subscribe(`${system.env.SERVICE_NATS_NAMESPACE}.>`, {
        callback: (_error, message) => seen.push(Buffer.from(message.data).toString('latin1')),
      });
      await nc.flush();
      // Asked by the replica that has not cached it yet, and by a wrong key.
      expect(await statusOf(replicas[1], key)).toBe(200);
      const wrong = key.slice(0, -1) + (key.endsWith('0') ? '1' : '0');
      expect(await statusOf(replicas[1], wrong)).toBe(401);
      await nc.flush();
      subscription.unsubscribe();
      const hash = createHash('sha256').update(key, 'utf8').digest('hex');
      expect(seen.some((payload) => payload.includes(hash))).toBe(true);
      expect(seen.filter((payload) => payload.includes(key) || payload.includes(wrong))).toEqual([]);
    } finally {
      await nc.close();
    }
  });
});
