import { eventually, httpsRequest, startTestSystem, TestDatabase, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const BOOTSTRAP_TOKEN = 'bootstrap-token-for-tests-0123456789';

/** Day-0 bootstrap (spec 5.6) and stored API keys, through the real gateway and auth processes. */
describe('bootstrap and API keys through gateway -> NATS -> auth', () => {
  let system: TestSystem;
  let database: TestDatabase;
  let gatewayUrl: string;
  let ca: string;
  const bodies: string[] = [];

  const api = async (method: string, path: string, options: { key?: string; body?: unknown } = {}) => {
    const response = await httpsRequest(`${gatewayUrl}${path}`, {
      method,
      ca,
      headers: {
        ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    bodies.push(response.text);
    return response;
  };

  beforeAll(async () => {
    system = await startTestSystem('bootstrap', ['auth', 'api-gateway'], {
      SERVICE_BOOTSTRAP_TOKEN: BOOTSTRAP_TOKEN,
    });
    ({ ca, database } = system);
    gatewayUrl = system.services['api-gateway'].url;
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  let adminKey: string;

  it('probes as available before first use', async () => {
    expect((await api('GET', '/api/v1/auth/bootstrap')).json()).toEqual({ available: true });
  });

  it('refuses an invalid actor name with 400 and a wrong token with 401, leaving bootstrap open', async () => {
    const badName = await api('POST', '/api/v1/auth/bootstrap', {
      body: { token: BOOTSTRAP_TOKEN, actor_id: 'Not Valid!' },
    });
    expect(badName.status).toBe(400);
    const wrongToken = await api('POST', '/api/v1/auth/bootstrap', {
      body: { token: 'nope', actor_id: 'alice' },
    });
    expect(wrongToken.status).toBe(401);
    expect(wrongToken.json()).toMatchObject({ code: 'bootstrap_token_invalid' });
    expect((await api('GET', '/api/v1/auth/bootstrap')).json()).toEqual({ available: true });
  });

  it('mints an admin key once (201), then answers 410 and probes as unavailable', async () => {
    const [first, second] = await Promise.all([
      api('POST', '/api/v1/auth/bootstrap', { body: { token: BOOTSTRAP_TOKEN, actor_id: 'alice' } }),
      api('POST', '/api/v1/auth/bootstrap', { body: { token: BOOTSTRAP_TOKEN, actor_id: 'mallory' } }),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([201, 410]);
    const minted = (first.status === 201 ? first : second).json() as {
      key: string;
      actor_id: string;
      role_ids: string[];
    };
    expect(minted.key).toMatch(/^[0-9a-f]{64}$/);
    expect(minted.role_ids).toEqual(['r-admin']);
    adminKey = minted.key;
    expect(
      (await api('POST', '/api/v1/auth/bootstrap', { body: { token: BOOTSTRAP_TOKEN, actor_id: 'alice' } }))
        .status,
    ).toBe(410);
    expect((await api('GET', '/api/v1/auth/bootstrap')).json()).toEqual({ available: false });
  });

  it('stores only the SHA-256 of the minted key', async () => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query('SELECT key_hash FROM auth.api_keys');
    await client.end();
    const { createHash } = await import('node:crypto');
    expect(rows).toEqual([{ key_hash: createHash('sha256').update(adminKey).digest('hex') }]);
  });

  it('lets the minted key call the API and manage keys', async () => {
    const list = await api('GET', '/api/v1/auth/api-keys', { key: adminKey });
    expect(list.status).toBe(200);
    expect(list.json()).toMatchObject({
      total: 1,
      data: [{ name: expect.stringMatching(/^bootstrap-/), admin: true }],
    });
  });

  it('creates a non-admin key shown once, which authenticates but gets 403 on admin routes', async () => {
    const created = await api('POST', '/api/v1/auth/api-keys', { key: adminKey, body: { name: 'ci-bot' } });
    expect(created.status).toBe(201);
    const key = created.json() as { id: string; key: string; admin: boolean; created_by: string };
    expect(key).toMatchObject({ admin: false });
    expect(key.key).toMatch(/^[0-9a-f]{64}$/);
    const forbidden = await api('GET', '/api/v1/auth/api-keys', { key: key.key });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json()).toMatchObject({ code: 'forbidden' });
    const listed = (await api('GET', '/api/v1/auth/api-keys', { key: adminKey })).json() as {
      data: Record<string, unknown>[];
    };
    expect(listed.data.every((k) => !('key' in k) && !('key_hash' in k))).toBe(true);
    expect(
      (await api('POST', '/api/v1/auth/api-keys', { key: adminKey, body: { name: 'ci-bot' } })).status,
    ).toBe(409);
  });

  it('refuses an expired key with 401', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = (
      await api('POST', '/api/v1/auth/api-keys', {
        key: adminKey,
        body: { name: 'short', expires_at: expiresAt },
      })
    ).json() as { key: string };
    await eventually(async () => Date.now() > Date.parse(expiresAt) + 100, 'the key to expire');
    // A fresh gateway cache entry cannot outlive the key: the first use is after expiry.
    expect((await api('GET', '/api/v1/auth/api-keys', { key: created.key })).status).toBe(401);
    const past = await api('POST', '/api/v1/auth/api-keys', {
      key: adminKey,
      body: { name: 'past', expires_at: '2020-01-01T00:00:00Z' },
    });
    expect(past.status).toBe(400);
  });

  it('rotates a key: the new secret works, the old one stops (within the cache TTL)', async () => {
    const created = (
      await api('POST', '/api/v1/auth/api-keys', { key: adminKey, body: { name: 'rotating', admin: true } })
    ).json() as { id: string; key: string };
    const rotated = await api('POST', `/api/v1/auth/api-keys/${created.id}/rotate`, { key: adminKey });
    expect(rotated.status).toBe(200);
    const fresh = (rotated.json() as { key: string }).key;
    expect(fresh).not.toBe(created.key);
    expect((await api('GET', '/api/v1/auth/api-keys', { key: fresh })).status).toBe(200);
    expect((await api('GET', '/api/v1/auth/api-keys', { key: created.key })).status).toBe(401);
  });

  it('drops a deleted key from the gateway cache at once (well inside the 5 s TTL)', async () => {
    const created = (
      await api('POST', '/api/v1/auth/api-keys', { key: adminKey, body: { name: 'cached', admin: true } })
    ).json() as { id: string; key: string };
    expect((await api('GET', '/api/v1/auth/api-keys', { key: created.key })).status).toBe(200);
    const deletedAt = Date.now();
    expect((await api('DELETE', `/api/v1/auth/api-keys/${created.id}`, { key: adminKey })).status).toBe(204);
    await eventually(
      async () => (await api('GET', '/api/v1/auth/api-keys', { key: created.key })).status === 401,
      'the deleted key to be refused',
      2000,
    );
    expect(Date.now() - deletedAt).toBeLessThan(4000);
  });

  it('deletes a key with 204; it then stops working; an unknown id is 404', async () => {
    const created = (
      await api('POST', '/api/v1/auth/api-keys', { key: adminKey, body: { name: 'to-delete' } })
    ).json() as { id: string; key: string };
    expect((await api('DELETE', `/api/v1/auth/api-keys/${created.id}`, { key: adminKey })).status).toBe(204);
    expect((await api('DELETE', `/api/v1/auth/api-keys/${created.id}`, { key: adminKey })).status).toBe(404);
    expect((await api('GET', '/api/v1/auth/api-keys', { key: created.key })).status).toBe(401);
  });

  it('ADR 0014: a key manager who is not an admin (r-cli) cannot rotate, delete or mint keys that could do more than it', async () => {
    const cli = (
      await api('POST', '/api/v1/auth/api-keys', {
        key: adminKey,
        body: { name: 'cli-mgr', role_ids: ['r-cli'] },
      })
    ).json() as { key: string };
    const listed = (await api('GET', '/api/v1/auth/api-keys?per_page=500', { key: cli.key })).json() as {
      data: { id: string; actor_id: string; admin: boolean; name: string }[];
    };
    const admin = listed.data.find((k) => k.admin && k.name.startsWith('bootstrap-'))!;
    const refused = async (method: string, path: string, body?: unknown) => {
      const response = await api(method, path, { key: cli.key, body });
      return [response.status, (response.json() as { code: string }).code];
    };
    // The bootstrap admin's key: rotating it would hand over a working admin secret.
    expect(await refused('POST', `/api/v1/auth/api-keys/${admin.id}/rotate`)).toEqual([403, 'forbidden']);
    expect(await refused('DELETE', `/api/v1/auth/api-keys/${admin.id}`)).toEqual([403, 'forbidden']);
    // A new key for the admin's actor would act with its r-admin grant; one for an agent as the agent.
    expect(await refused('POST', '/api/v1/auth/api-keys', { name: 'x', actor_id: admin.actor_id })).toEqual([
      403,
      'forbidden',
    ]);
    expect(await refused('POST', '/api/v1/auth/api-keys', { name: 'y', actor_id: 'agent.a1' })).toEqual([
      403,
      'forbidden',
    ]);
    expect((await api('GET', '/api/v1/auth/api-keys', { key: adminKey })).status).toBe(200);
    // A key for a new actor, holding nothing, it may make, rotate and delete.
    const own = await api('POST', '/api/v1/auth/api-keys', { key: cli.key, body: { name: 'fresh-bot' } });
    expect(own.status).toBe(201);
    const ownId = (own.json() as { id: string }).id;
    expect((await api('POST', `/api/v1/auth/api-keys/${ownId}/rotate`, { key: cli.key })).status).toBe(200);
    expect((await api('DELETE', `/api/v1/auth/api-keys/${ownId}`, { key: cli.key })).status).toBe(204);
  });

  it('never returns a key hash in any response', async () => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query<{ key_hash: string }>('SELECT key_hash FROM auth.api_keys');
    await client.end();
    const all = bodies.join('\n');
    for (const { key_hash } of rows) expect(all).not.toContain(key_hash);
    expect(all).not.toContain('key_hash');
  });
});
