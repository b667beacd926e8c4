import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';

/**
 * A caller who is not an admin cannot hand out more than it holds, custom roles included, and
 * cannot deactivate an admin (ADR 0014, 0018 amendments): checked by the auth service, which
 * knows every role's permissions, with the caller's rights the gateway sends.
 */
describe('handing out roles and deactivating admins as a non-admin', () => {
  let system: TestSystem;
  let gatewayUrl: string;
  let managerKey: string;

  const api = (method: string, path: string, key: string, body?: unknown) =>
    httpsRequest(`${gatewayUrl}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const asRoot = (method: string, path: string, body?: unknown) =>
    api(method, path, system.env.SERVICE_AUTH_SECRET!, body);

  beforeAll(async () => {
    system = await startTestSystem('hand-out', ['auth', 'api-gateway']);
    gatewayUrl = system.services['api-gateway'].url;
    for (const role of [
      {
        id: 'r-role-manager',
        permissions: ['auth.role.assign', 'auth.role.list', 'auth.user.deactivate', 'audit.read'],
      },
      { id: 'r-revoker', permissions: ['certificate.read', 'certificate.revoke'] },
      { id: 'r-audit-reader', permissions: ['audit.read'] },
    ]) {
      expect((await asRoot('POST', '/api/v1/auth/roles', { ...role, description: role.id })).status).toBe(
        201,
      );
    }
    const manager = await asRoot('POST', '/api/v1/auth/api-keys', {
      name: 'role-manager',
      actor_id: 'role-manager',
      role_ids: ['r-role-manager'],
    });
    expect(manager.status).toBe(201);
    managerKey = (manager.json() as { key: string }).key;
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('refuses a grant of a custom role with permissions the caller lacks (403), and of r-admin', async () => {
    const custom = await api('POST', '/api/v1/auth/grants', managerKey, {
      actor_id: 'role-manager',
      role_id: 'r-revoker',
    });
    expect(custom.status).toBe(403);
    expect(custom.json()).toMatchObject({ code: 'forbidden', details: { permission: 'certificate.read' } });
    const admin = await api('POST', '/api/v1/auth/grants', managerKey, {
      actor_id: 'role-manager',
      role_id: 'r-admin',
    });
    expect(admin.status).toBe(403);
    const grants = await asRoot('GET', '/api/v1/auth/grants?actor_id=role-manager');
    expect((grants.json() as { data: { role_id: string }[] }).data.map((g) => g.role_id)).toEqual([
      'r-role-manager',
    ]);
  });

  it('grants a custom role whose permissions the caller holds', async () => {
    const within = await api('POST', '/api/v1/auth/grants', managerKey, {
      actor_id: 'someone',
      role_id: 'r-audit-reader',
    });
    expect(within.status).toBe(201);
  });

  it('refuses a non-admin deactivating an admin (403) though it is not the last; an admin may', async () => {
    for (const name of ['admin-a', 'admin-b']) {
      expect(
        (await asRoot('POST', '/api/v1/auth/api-keys', { name, actor_id: name, admin: true })).status,
      ).toBe(201);
    }
    const refused = await api('DELETE', '/api/v1/auth/users/admin-a', managerKey);
    expect(refused.status).toBe(403);
    const users = (await asRoot('GET', '/api/v1/auth/users')).json() as {
      data: { id: string; active: boolean }[];
    };
    expect(users.data.find((user) => user.id === 'admin-a')).toMatchObject({ active: true });
    expect((await asRoot('DELETE', '/api/v1/auth/users/admin-a')).status).toBe(200);
  });
});
