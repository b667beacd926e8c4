import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';

/** Deactivating users never leaves the system without an active admin (ADR 0018 amendment). */
describe('the last active admin', () => {
  let system: TestSystem;
  let gatewayUrl: string;
  let ca: string;
  let secret: string;

  const api = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${gatewayUrl}${path}`, {
      method,
      ca,
      headers: {
        authorization: `Bearer ${secret}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    system = await startTestSystem('last-admin', ['auth', 'api-gateway']);
    ca = system.ca;
    secret = system.env.SERVICE_AUTH_SECRET!;
    gatewayUrl = system.services['api-gateway'].url;
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('refuses to deactivate the last active admin with 409, and allows it while another remains', async () => {
    for (const name of ['alice', 'bob']) {
      const created = await api('POST', '/api/v1/auth/api-keys', { name, actor_id: name, admin: true });
      expect(created.status).toBe(201);
    }
    expect((await api('DELETE', '/api/v1/auth/users/alice')).status).toBe(200);
    const last = await api('DELETE', '/api/v1/auth/users/bob');
    expect(last.status).toBe(409);
    expect(last.json()).toMatchObject({ code: 'conflict' });
    const users = (await api('GET', '/api/v1/auth/users')).json() as {
      data: { id: string; active: boolean }[];
    };
    expect(users.data.find((u) => u.id === 'bob')).toMatchObject({ active: true });
  });
});
