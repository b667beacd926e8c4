import { readFileSync } from 'node:fs';
import {
  createTestDatabase,
  createTlsFixture,
  httpsRequest,
  ServiceProcess,
  startServiceProcess,
  TestDatabase,
  testNatsUrl,
  TlsFixture,
  uniqueNamespace,
  validServiceEnv,
} from '@certlane/testing';

/**
 * The renewal-policy slice through the real gateway and issuance processes over real NATS and
 * Postgres (spec 2.8, 4.6, 2.1); the auth service runs too, since the gateway asks it about
 * keys it does not know.
 */
describe('renewal policies through gateway -> NATS -> issuance -> Postgres', () => {
  let database: TestDatabase;
  let tls: TlsFixture;
  let gateway: ServiceProcess;
  let issuance: ServiceProcess;
  let auth: ServiceProcess;
  let ca: string;
  const env = validServiceEnv();

  const api = (method: string, path: string, body?: unknown, key = env.SERVICE_AUTH_SECRET) =>
    httpsRequest(`${gateway.url}${path}`, {
      method,
      ca,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    database = await createTestDatabase('slice');
    tls = await createTlsFixture();
    ca = readFileSync(tls.certPath, 'utf8');
    Object.assign(env, {
      SERVICE_TLS_CERT_PATH: tls.certPath,
      SERVICE_TLS_KEY_PATH: tls.keyPath,
      SERVICE_DATABASE_URL: database.url,
      SERVICE_NATS_URL: testNatsUrl(),
      SERVICE_NATS_NAMESPACE: uniqueNamespace('slice'),
      SERVICE_LOG_LEVEL: 'warn',
    });
    [auth, issuance, gateway] = await Promise.all([
      startServiceProcess('auth', env, { ca }),
      startServiceProcess('issuance', env, { ca }),
      startServiceProcess('api-gateway', env, { ca }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([gateway?.stop(), issuance?.stop(), auth?.stop()]);
    await database?.drop();
  });

  describe('authentication', () => {
    it('refuses a request without a key with 401 and the error body', async () => {
      const response = await api('GET', '/api/v1/renewal-policies', undefined, '');
      expect(response.status).toBe(401);
      expect(response.json()).toMatchObject({ code: 'unauthenticated', request_id: expect.any(String) });
      expect(response.headers['www-authenticate']).toContain('Bearer');
    });

    it('refuses a wrong key with 401', async () => {
      const response = await api('GET', '/api/v1/renewal-policies', undefined, `${env.SERVICE_AUTH_SECRET}x`);
      expect(response.status).toBe(401);
    });

    it('serves /health, /ready, /api/v1/version and /api/v1/auth/info without a key', async () => {
      expect((await api('GET', '/health', undefined, '')).json()).toEqual({ status: 'ok' });
      expect((await api('GET', '/ready', undefined, '')).status).toBe(200);
      const version = (await api('GET', '/api/v1/version', undefined, '')).json() as Record<string, string>;
      expect(Object.keys(version).sort()).toEqual([
        'build_time',
        'commit',
        'go_version',
        'modified',
        'version',
      ]);
      expect(version.go_version).toBe(`node${process.versions.node}`);
      expect((await api('GET', '/api/v1/auth/info', undefined, '')).json()).toEqual({
        auth_type: 'api-key',
        required: true,
      });
    });
  });

  describe('create', () => {
    it('applies the defaults of spec 2.8 and derives the id from the name', async () => {
      const response = await api('POST', '/api/v1/renewal-policies', { name: 'Web Servers', max_retries: 2 });
      expect(response.status).toBe(201);
      expect(response.json()).toMatchObject({
        id: 'rp-web-servers',
        name: 'Web Servers',
        renewal_window_days: 30,
        max_retries: 2,
        retry_interval_seconds: 3600,
        alert_thresholds_days: [30, 14, 7, 0],
      });
    });

    it('refuses a duplicate name with 409, whatever its case', async () => {
      await api('POST', '/api/v1/renewal-policies', { name: 'Mail', max_retries: 1 });
      const response = await api('POST', '/api/v1/renewal-policies', { name: 'MAIL', max_retries: 1 });
      expect(response.status).toBe(409);
      expect(response.json()).toMatchObject({ code: 'renewal_policy_duplicate_name' });
    });

    it('gives a distinct id to a different name with the same slug', async () => {
      await api('POST', '/api/v1/renewal-policies', { name: 'Edge Proxies', max_retries: 1 });
      const second = await api('POST', '/api/v1/renewal-policies', { name: 'edge-proxies', max_retries: 1 });
      expect(second.status).toBe(201);
      expect((second.json() as { id: string }).id).toBe('rp-edge-proxies-2');
    });

    it.each([
      ['renewal_window_days', 0],
      ['renewal_window_days', 366],
      ['renewal_window_days', 1.5],
      ['renewal_window_days', '30'],
      ['max_retries', -1],
      ['max_retries', 11],
      ['retry_interval_seconds', 59],
      ['retry_interval_seconds', 86401],
      ['alert_thresholds_days', [-1]],
      ['alert_thresholds_days', [366]],
      ['alert_thresholds_days', [7, 7]],
      ['alert_thresholds_days', 'soon'],
      ['name', ''],
      ['name', 'x'.repeat(256)],
    ])('refuses %s = %j with 400 naming the field', async (field, value) => {
      const response = await api('POST', '/api/v1/renewal-policies', {
        name: `bound ${field}`,
        max_retries: 1,
        [field]: value,
      });
      expect(response.status).toBe(400);
      const body = response.json() as { code: string; details: { fields: { field: string }[] } };
      expect(body.code).toBe('validation_failed');
      expect(body.details.fields.map((f) => f.field)).toContain(field);
    });

    it.each([
      ['renewal_window_days', 1],
      ['renewal_window_days', 365],
      ['max_retries', 0],
      ['max_retries', 10],
      ['retry_interval_seconds', 60],
      ['retry_interval_seconds', 86400],
      ['alert_thresholds_days', [0, 365]],
      ['alert_thresholds_days', []],
    ])('accepts the bound %s = %j', async (field, value) => {
      const response = await api('POST', '/api/v1/renewal-policies', {
        name: `edge ${field} ${JSON.stringify(value)}`,
        max_retries: 1,
        [field]: value,
      });
      expect(response.status).toBe(201);
      expect((response.json() as Record<string, unknown>)[field]).toEqual(value);
    });

    it('accepts a 255-character name', async () => {
      expect(
        (await api('POST', '/api/v1/renewal-policies', { name: 'n'.repeat(255), max_retries: 0 })).status,
      ).toBe(201);
    });

    it('requires max_retries, which has no default', async () => {
      const response = await api('POST', '/api/v1/renewal-policies', { name: 'No retries given' });
      expect(response.status).toBe(400);
    });

    it('refuses unknown fields, malformed JSON and non-object bodies with 400', async () => {
      expect(
        (await api('POST', '/api/v1/renewal-policies', { name: 'u', max_retries: 1, colour: 'red' })).status,
      ).toBe(400);
      const malformed = await api('POST', '/api/v1/renewal-policies', '{"name":');
      expect(malformed.status).toBe(400);
      expect(malformed.json()).toMatchObject({ code: 'malformed_json' });
      expect((await api('POST', '/api/v1/renewal-policies', '[1,2]')).status).toBe(400);
    });
  });

  describe('get, update and delete', () => {
    it('returns a policy and 404 for an unknown id', async () => {
      const created = (
        await api('POST', '/api/v1/renewal-policies', { name: 'Databases', max_retries: 4 })
      ).json() as { id: string };
      const fetched = await api('GET', `/api/v1/renewal-policies/${created.id}`);
      expect(fetched.status).toBe(200);
      expect(fetched.json()).toMatchObject({ id: 'rp-databases', max_retries: 4 });
      const missing = await api('GET', '/api/v1/renewal-policies/rp-nope');
      expect(missing.status).toBe(404);
      expect(missing.json()).toMatchObject({ code: 'renewal_policy_not_found' });
    });

    it('updates only the given fields and keeps the id when the name changes', async () => {
      await api('POST', '/api/v1/renewal-policies', {
        name: 'Queues',
        max_retries: 4,
        renewal_window_days: 20,
      });
      const response = await api('PUT', '/api/v1/renewal-policies/rp-queues', {
        name: 'Message queues',
        max_retries: 6,
      });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({
        id: 'rp-queues',
        name: 'Message queues',
        max_retries: 6,
        renewal_window_days: 20,
      });
    });

    it("refuses an update to another policy's name with 409 and leaves the policy unchanged", async () => {
      await api('POST', '/api/v1/renewal-policies', { name: 'Alpha', max_retries: 1 });
      await api('POST', '/api/v1/renewal-policies', { name: 'Beta', max_retries: 1 });
      const response = await api('PUT', '/api/v1/renewal-policies/rp-beta', {
        name: 'alpha',
        max_retries: 9,
      });
      expect(response.status).toBe(409);
      expect((await api('GET', '/api/v1/renewal-policies/rp-beta')).json()).toMatchObject({
        name: 'Beta',
        max_retries: 1,
      });
    });

    it('validates update bounds with 400 and 404s an unknown id', async () => {
      expect((await api('PUT', '/api/v1/renewal-policies/rp-default', { max_retries: 11 })).status).toBe(400);
      expect((await api('PUT', '/api/v1/renewal-policies/rp-none', { max_retries: 1 })).status).toBe(404);
    });

    it('deletes with 204, then 404', async () => {
      await api('POST', '/api/v1/renewal-policies', { name: 'Short lived', max_retries: 1 });
      expect((await api('DELETE', '/api/v1/renewal-policies/rp-short-lived')).status).toBe(204);
      expect((await api('DELETE', '/api/v1/renewal-policies/rp-short-lived')).status).toBe(404);
      expect((await api('GET', '/api/v1/renewal-policies/rp-short-lived')).status).toBe(404);
    });

    it('refuses to delete the default policy with 409, even when no certificate uses it yet (every enrollment would fail)', async () => {
      const response = await api('DELETE', '/api/v1/renewal-policies/rp-default');
      expect([response.status, (response.json() as { code: string }).code]).toEqual([
        409,
        'renewal_policy_in_use',
      ]);
      expect((await api('GET', '/api/v1/renewal-policies/rp-default')).status).toBe(200);
    });
  });

  describe('list and pagination', () => {
    beforeAll(async () => {
      for (let i = 0; i < 7; i++)
        await api('POST', '/api/v1/renewal-policies', { name: `Page item ${i}`, max_retries: 1 });
    });

    it('returns the envelope with defaults page 1 and per_page 50', async () => {
      const body = (await api('GET', '/api/v1/renewal-policies')).json() as {
        data: unknown[];
        total: number;
        page: number;
        per_page: number;
      };
      expect(body.page).toBe(1);
      expect(body.per_page).toBe(50);
      expect(body.total).toBeGreaterThanOrEqual(8);
      expect(body.data.length).toBe(Math.min(body.total, 50));
    });

    it('pages through without overlap and returns an empty page past the end', async () => {
      const total = ((await api('GET', '/api/v1/renewal-policies')).json() as { total: number }).total;
      const seen = new Set<string>();
      for (let page = 1; page <= Math.ceil(total / 3); page++) {
        const body = (await api('GET', `/api/v1/renewal-policies?page=${page}&per_page=3`)).json() as {
          data: { id: string }[];
          per_page: number;
        };
        expect(body.per_page).toBe(3);
        body.data.forEach((p) => seen.add(p.id));
      }
      expect(seen.size).toBe(total);
      const past = (
        await api('GET', `/api/v1/renewal-policies?page=${Math.ceil(total / 3) + 1}&per_page=3`)
      ).json() as { data: unknown[]; total: number };
      expect(past.data).toEqual([]);
      expect(past.total).toBe(total);
    });

    it('accepts per_page 500 and refuses 0, 501, negative and non-numeric values with 400', async () => {
      expect((await api('GET', '/api/v1/renewal-policies?per_page=500')).status).toBe(200);
      for (const query of [
        'per_page=0',
        'per_page=501',
        'page=0',
        'page=-1',
        'page=abc',
        'per_page=1.5',
        'page=',
      ]) {
        const response = await api('GET', `/api/v1/renewal-policies?${query}`);
        expect([query, response.status]).toEqual([query, 400]);
      }
    });
  });

  it('answers 405 with Allow for a wrong method on a known path, and on admin routes (spec 4.9)', async () => {
    const patch = await api('PATCH', '/api/v1/renewal-policies/rp-anything', { name: 'x' });
    expect(patch.status).toBe(405);
    expect(patch.headers.allow).toBe('DELETE, GET, HEAD, PUT');
    expect(patch.json()).toMatchObject({ code: 'method_not_allowed' });
    const admin = await api('PUT', '/api/v1/admin/est/profiles', {});
    expect(admin.status).toBe(405);
    expect(admin.headers.allow).toBe('GET, HEAD, POST');
    const postOnly = await api('GET', '/api/v1/admin/est/reload-trust');
    expect([postOnly.status, postOnly.headers.allow]).toEqual([405, 'POST']);
    expect((await api('PATCH', '/api/v1/no-such-route')).status).toBe(404);
  });

  it('writes each change and its event to the outbox, and the relay publishes them', async () => {
    const { Client } = await import('pg');
    await api('POST', '/api/v1/renewal-policies', { name: 'Outboxed', max_retries: 1 });
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const deadline = Date.now() + 10_000;
      let row: { published: boolean } | undefined;
      while (Date.now() < deadline) {
        const { rows } = await client.query(
          `SELECT published_at IS NOT NULL AS published FROM issuance.outbox WHERE envelope->'data'->>'id' = 'rp-outboxed'`,
        );
        row = rows[0];
        if (row?.published) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(row).toEqual({ published: true });
    } finally {
      await client.end();
    }
  });
});
