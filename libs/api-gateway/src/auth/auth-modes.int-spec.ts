import { readFileSync } from 'node:fs';
import {
  createTestDatabase,
  createTlsFixture,
  httpsRequest,
  ServiceProcess,
  startServiceProcess,
  TestDatabase,
  testNatsUrl,
  uniqueNamespace,
  validServiceEnv,
} from '@certlane/testing';

/** The gateway's authentication modes (spec 5.1) in a real gateway process. */
describe('gateway authentication modes', () => {
  let database: TestDatabase;
  let ca: string;
  let baseEnv: Record<string, string | undefined>;
  const started: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('authmodes');
    const tls = await createTlsFixture();
    ca = readFileSync(tls.certPath, 'utf8');
    baseEnv = {
      SERVICE_TLS_CERT_PATH: tls.certPath,
      SERVICE_TLS_KEY_PATH: tls.keyPath,
      SERVICE_DATABASE_URL: database.url,
      SERVICE_NATS_URL: testNatsUrl(),
      SERVICE_NATS_NAMESPACE: uniqueNamespace('auth'),
      SERVICE_BUS_REQUEST_TIMEOUT: '2s',
    };
    // The gateway asks the auth service about bearer keys other than SERVICE_AUTH_SECRET.
    started.push(await startServiceProcess('auth', { ...validServiceEnv(), ...baseEnv }, { ca }));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()));
    await database?.drop();
  });

  async function gateway(
    env: Record<string, string | undefined>,
    overrides: Record<string, string> = {},
  ): Promise<ServiceProcess> {
    const service = await startServiceProcess('api-gateway', { ...env, ...baseEnv, ...overrides }, { ca });
    started.push(service);
    return service;
  }

  it('none mode: no key needed, requests act as the demo actor, and a banner warns at startup', async () => {
    const service = await gateway({
      SERVICE_AUTH_TYPE: 'none',
      SERVICE_DEMO_MODE_ACK: 'true',
      SERVICE_CONFIG_ENCRYPTION_KEY: validServiceEnv().SERVICE_CONFIG_ENCRYPTION_KEY,
    });
    expect((await httpsRequest(`${service.url}/api/v1/auth/info`, { ca })).json()).toEqual({
      auth_type: 'none',
      required: false,
    });
    // Authentication passes; with no issuance service answering, the bus reports 503.
    const response = await httpsRequest(`${service.url}/api/v1/renewal-policies`, { ca });
    expect(response.status).toBe(503);
    expect(response.json()).toMatchObject({ code: 'service_unavailable' });
    expect(service.output()).toContain('AUTHENTICATION IS OFF');
  });

  it('oidc mode: API keys keep working and everything else is 401', async () => {
    const env = validServiceEnv({ SERVICE_AUTH_TYPE: 'oidc' });
    const service = await gateway(env);
    expect((await httpsRequest(`${service.url}/api/v1/auth/info`, { ca })).json()).toEqual({
      auth_type: 'oidc',
      required: true,
    });
    expect((await httpsRequest(`${service.url}/api/v1/renewal-policies`, { ca })).status).toBe(401);
    const withKey = await httpsRequest(`${service.url}/api/v1/renewal-policies`, {
      ca,
      headers: { authorization: `Bearer ${env.SERVICE_AUTH_SECRET}` },
    });
    expect(withKey.status).toBe(503);
  });

  it('never accepts the hash of the key, a Basic credential or a key in the query string', async () => {
    const env = validServiceEnv();
    const service = await gateway(env);
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(env.SERVICE_AUTH_SECRET!).digest('hex');
    for (const headers of [
      { authorization: `Bearer ${hash}` },
      { authorization: `Basic ${Buffer.from(`x:${env.SERVICE_AUTH_SECRET}`).toString('base64')}` },
    ]) {
      expect((await httpsRequest(`${service.url}/api/v1/renewal-policies`, { ca, headers })).status).toBe(
        401,
      );
    }
    const query = await httpsRequest(
      `${service.url}/api/v1/renewal-policies?api_key=${env.SERVICE_AUTH_SECRET}`,
      { ca },
    );
    expect(query.status).toBe(401);
  });

  it('accepts keys from SERVICE_API_KEYS_NAMED with the permissions of their roles', async () => {
    const viewerKey = '9f'.repeat(20);
    const service = await gateway(
      validServiceEnv({ SERVICE_API_KEYS_NAMED: `grafana:${viewerKey}:r-viewer` }),
    );
    const me = await httpsRequest(`${service.url}/api/v1/auth/me`, {
      ca,
      headers: { authorization: `Bearer ${viewerKey}` },
    });
    expect(me.json()).toMatchObject({ actor_id: 'grafana', admin: false, role_ids: ['r-viewer'] });
    const create = await httpsRequest(`${service.url}/api/v1/renewal-policies`, {
      method: 'POST',
      ca,
      headers: { authorization: `Bearer ${viewerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', max_retries: 1 }),
    });
    expect(create.status).toBe(403);
  });

  it('fails closed with 503 for an unknown key when the auth service does not answer', async () => {
    const env = validServiceEnv();
    const service = await gateway(env, { SERVICE_NATS_NAMESPACE: uniqueNamespace('noauth') });
    const unknown = await httpsRequest(`${service.url}/api/v1/renewal-policies`, {
      ca,
      headers: { authorization: 'Bearer 0000000000000000000000000000000000000000000000000000000000000000' },
    });
    expect(unknown.status).toBe(503);
    expect(unknown.json()).toMatchObject({ code: 'service_unavailable' });
  });
});
