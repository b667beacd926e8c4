import { DEFAULT_ROLES, PERMISSIONS } from '@certlane/contracts';
import { eventually, httpsRequest, startTestSystem, TestDatabase, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

/** Roles and permissions (spec 5.3) through the real gateway, auth and issuance processes. */
describe('role-based access through the gateway', () => {
  let system: TestSystem;
  let database: TestDatabase;
  let gatewayUrl: string;
  let ca: string;
  let admin: string;
  const keys: Record<string, string> = {};

  const api = (method: string, path: string, key: string, body?: unknown) =>
    httpsRequest(`${gatewayUrl}${path}`, {
      method,
      ca,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    system = await startTestSystem('rbac', ['auth', 'issuance', 'api-gateway']);
    ({ ca, database } = system);
    admin = system.env.SERVICE_AUTH_SECRET!;
    gatewayUrl = system.services['api-gateway'].url;
    for (const role of ['r-viewer', 'r-operator', 'r-auditor', 'r-cli']) {
      const created = await api('POST', '/api/v1/auth/api-keys', admin, {
        name: `key-${role}`,
        role_ids: [role],
      });
      expect(created.status).toBe(201);
      keys[role] = (created.json() as { key: string }).key;
    }
    keys.none = (
      (await api('POST', '/api/v1/auth/api-keys', admin, { name: 'no-roles' })).json() as { key: string }
    ).key;
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('seeds the seven default roles with the catalogue permissions', async () => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query<{ role_id: string; n: number }>(
      'SELECT role_id, count(*)::int AS n FROM auth.role_permissions GROUP BY role_id ORDER BY role_id',
    );
    await client.end();
    expect(Object.fromEntries(rows.map((r) => [r.role_id, r.n]))).toEqual(
      Object.fromEntries(Object.entries(DEFAULT_ROLES).map(([id, role]) => [id, role.permissions.length])),
    );
    expect(DEFAULT_ROLES['r-admin'].permissions).toHaveLength(PERMISSIONS.length);
  });

  it.each([
    ['r-viewer', 'GET', '/api/v1/renewal-policies', undefined, 200],
    ['r-viewer', 'POST', '/api/v1/renewal-policies', { name: 'Viewer made', max_retries: 1 }, 403],
    ['r-operator', 'POST', '/api/v1/renewal-policies', { name: 'Operator made', max_retries: 1 }, 201],
    ['r-operator', 'GET', '/api/v1/auth/api-keys', undefined, 403],
    ['r-auditor', 'GET', '/api/v1/renewal-policies', undefined, 403],
    ['r-cli', 'GET', '/api/v1/auth/api-keys', undefined, 200],
    ['none', 'GET', '/api/v1/renewal-policies', undefined, 403],
    ['none', 'GET', '/api/v1/auth/check', undefined, 200],
  ])('%s: %s %s answers %d', async (who, method, path, body, status) => {
    const response = await api(method, path, keys[who], body);
    expect(response.status).toBe(status);
    if (status === 403) expect(response.json()).toMatchObject({ code: 'forbidden' });
  });

  it('reports the effective permissions of the caller on /api/v1/auth/me', async () => {
    const me = (await api('GET', '/api/v1/auth/me', keys['r-viewer'])).json() as {
      actor_id: string;
      role_ids: string[];
      effective_permissions: string[];
    };
    expect(me.actor_id).toBe('key-r-viewer');
    expect(me.role_ids).toEqual(['r-viewer']);
    expect(me.effective_permissions).toEqual([...DEFAULT_ROLES['r-viewer'].permissions].sort());
  });

  it('stops a key with key management but no auth.role.assign from escalating', async () => {
    expect((await api('POST', '/api/v1/auth/api-keys', keys['r-cli'], { name: 'cli-made' })).status).toBe(
      201,
    );
    expect(
      (await api('POST', '/api/v1/auth/api-keys', keys['r-cli'], { name: 'cli-admin', admin: true })).status,
    ).toBe(403);
    const grant = await api('POST', '/api/v1/auth/api-keys', keys['r-cli'], {
      name: 'cli-grant',
      role_ids: ['r-operator'],
    });
    expect(grant.status).toBe(403);
  });

  it('lists one row per actor with its roles on /api/v1/auth/keys (auth.role.list)', async () => {
    const response = await api('GET', '/api/v1/auth/keys?per_page=500', admin);
    expect(response.status).toBe(200);
    const rows = (response.json() as { data: { actor_id: string; actor_type: string; role_ids: string[] }[] })
      .data;
    expect(rows).toEqual(
      expect.arrayContaining([
        {
          actor_id: 'key-r-viewer',
          actor_type: 'api-key',
          role_ids: ['r-viewer'],
          grants: [{ role_id: 'r-viewer', scope: '*' }],
        },
        { actor_id: 'no-roles', actor_type: 'api-key', role_ids: [], grants: [] },
      ]),
    );
    expect(new Set(rows.map((r) => r.actor_id)).size).toBe(rows.length);
    expect((await api('GET', '/api/v1/auth/keys', keys['r-operator'])).status).toBe(403);
  });

  describe('role and grant management', () => {
    it('creates a custom role and refuses duplicates, unknown permissions and changes to default roles', async () => {
      const created = await api('POST', '/api/v1/auth/roles', admin, {
        id: 'r-policy-reader',
        description: 'reads renewal policies',
        permissions: ['renewal_policy.read'],
      });
      expect(created.status).toBe(201);
      expect(created.json()).toMatchObject({
        id: 'r-policy-reader',
        builtin: false,
        permissions: ['renewal_policy.read'],
      });
      expect(
        (await api('POST', '/api/v1/auth/roles', admin, { id: 'r-policy-reader', permissions: [] })).status,
      ).toBe(409);
      expect(
        (await api('POST', '/api/v1/auth/roles', admin, { id: 'r-bad', permissions: ['cert.fly'] })).status,
      ).toBe(400);
      expect((await api('PUT', '/api/v1/auth/roles/r-viewer', admin, { permissions: [] })).status).toBe(409);
      expect((await api('DELETE', '/api/v1/auth/roles/r-admin', admin)).status).toBe(409);
      const roles = (await api('GET', '/api/v1/auth/roles', admin)).json() as { total: number };
      expect(roles.total).toBe(8);
    });

    it('applies a grant and its revocation to a cached key within moments', async () => {
      expect((await api('GET', '/api/v1/renewal-policies', keys.none)).status).toBe(403);
      expect(
        (
          await api('POST', '/api/v1/auth/grants', admin, {
            actor_id: 'no-roles',
            role_id: 'r-policy-reader',
          })
        ).status,
      ).toBe(201);
      await eventually(
        async () => (await api('GET', '/api/v1/renewal-policies', keys.none)).status === 200,
        'the grant',
        2000,
      );
      expect((await api('DELETE', '/api/v1/auth/grants/no-roles/r-policy-reader', admin)).status).toBe(204);
      await eventually(
        async () => (await api('GET', '/api/v1/renewal-policies', keys.none)).status === 403,
        'the revocation',
        2000,
      );
      expect((await api('DELETE', '/api/v1/auth/grants/no-roles/r-policy-reader', admin)).status).toBe(404);
    });

    it('needs auth.role.assign to grant, and an admin to grant r-admin', async () => {
      const byCli = await api('POST', '/api/v1/auth/grants', keys['r-cli'], {
        actor_id: 'key-r-cli',
        role_id: 'r-operator',
      });
      expect(byCli.status).toBe(403);
    });

    it('deletes a custom role with its grants', async () => {
      await api('POST', '/api/v1/auth/grants', admin, { actor_id: 'no-roles', role_id: 'r-policy-reader' });
      expect((await api('DELETE', '/api/v1/auth/roles/r-policy-reader', admin)).status).toBe(204);
      expect((await api('GET', '/api/v1/auth/roles/r-policy-reader', admin)).status).toBe(404);
      const actors = (await api('GET', '/api/v1/auth/keys?per_page=500', admin)).json() as {
        data: { actor_id: string; role_ids: string[] }[];
      };
      expect(actors.data.find((a) => a.actor_id === 'no-roles')?.role_ids).toEqual([]);
    });
  });

  describe('scoped grants (ADR 0019)', () => {
    let scopedKey: string;

    beforeAll(async () => {
      const created = await api('POST', '/api/v1/auth/api-keys', admin, { name: 'team-payments-operator' });
      scopedKey = (created.json() as { key: string }).key;
      const granted = await api('POST', '/api/v1/auth/grants', admin, {
        actor_id: 'team-payments-operator',
        role_id: 'r-operator',
        scope: 'team:payments',
      });
      expect(granted.status).toBe(201);
      expect(granted.json()).toMatchObject({ role_id: 'r-operator', scope: 'team:payments' });
    });

    it('holds the role only within its scope: route checks, which are global, refuse it', async () => {
      const me = (await api('GET', '/api/v1/auth/me', scopedKey)).json() as {
        effective_permissions: string[];
        scoped_permissions: Record<string, string[]>;
      };
      expect(me.effective_permissions).toEqual([]);
      expect(me.scoped_permissions['team:payments']).toEqual(
        expect.arrayContaining(['renewal_policy.create', 'renewal_policy.read']),
      );
      expect((await api('GET', '/api/v1/renewal-policies', scopedKey)).status).toBe(403);
      const inScope = await api(
        'GET',
        '/api/v1/auth/check?permission=renewal_policy.create&scope=team:payments',
        scopedKey,
      );
      expect(inScope.json()).toEqual({
        status: 'ok',
        permission: 'renewal_policy.create',
        scope: 'team:payments',
        allowed: true,
        via: 'scope',
      });
      const elsewhere = await api(
        'GET',
        '/api/v1/auth/check?permission=renewal_policy.create&scope=team:search',
        scopedKey,
      );
      expect(elsewhere.json()).toMatchObject({ allowed: false, via: null });
    });

    it('lists grants with their scopes, filtered by actor, role and scope', async () => {
      const listed = await api('GET', '/api/v1/auth/grants?actor_id=team-payments-operator', admin);
      expect(listed.status).toBe(200);
      expect(listed.json()).toMatchObject({
        total: 1,
        data: [{ actor_id: 'team-payments-operator', role_id: 'r-operator', scope: 'team:payments' }],
      });
      const byScope = (
        await api('GET', '/api/v1/auth/grants?scope=team:payments&role_id=r-operator', admin)
      ).json() as { data: { actor_id: string }[] };
      expect(byScope.data.map((g) => g.actor_id)).toEqual(['team-payments-operator']);
      expect((await api('GET', '/api/v1/auth/grants?scope=planet:x', admin)).status).toBe(400);
      expect((await api('GET', '/api/v1/auth/grants', keys['r-viewer'])).status).toBe(403);
    });

    it('lets a global grant beat the scoped one, in every scope', async () => {
      await api('POST', '/api/v1/auth/grants', admin, {
        actor_id: 'team-payments-operator',
        role_id: 'r-viewer',
      });
      await eventually(
        async () => (await api('GET', '/api/v1/renewal-policies', scopedKey)).status === 200,
        'the global viewer grant',
        2000,
      );
      const me = (await api('GET', '/api/v1/auth/me', scopedKey)).json() as {
        scoped_permissions: Record<string, string[]>;
      };
      expect(me.scoped_permissions['team:payments']).not.toContain('renewal_policy.read');
      const check = await api(
        'GET',
        '/api/v1/auth/check?permission=renewal_policy.read&scope=team:search',
        scopedKey,
      );
      expect(check.json()).toMatchObject({ allowed: true, via: 'global' });
    });

    it('revokes a scoped grant by its scope, and refuses bad scopes and a scoped r-admin', async () => {
      expect(
        (await api('DELETE', '/api/v1/auth/grants/team-payments-operator/r-operator', admin)).status,
      ).toBe(404);
      expect(
        (
          await api(
            'DELETE',
            '/api/v1/auth/grants/team-payments-operator/r-operator?scope=team:payments',
            admin,
          )
        ).status,
      ).toBe(204);
      await eventually(
        async () => {
          const me = (await api('GET', '/api/v1/auth/me', scopedKey)).json() as {
            scoped_permissions: Record<string, string[]>;
          };
          return me.scoped_permissions['team:payments'] === undefined;
        },
        'the scoped revocation',
        2000,
      );
      const badScope = await api('POST', '/api/v1/auth/grants', admin, {
        actor_id: 'team-payments-operator',
        role_id: 'r-operator',
        scope: 'planet:earth',
      });
      expect(badScope.status).toBe(400);
      const scopedAdmin = await api('POST', '/api/v1/auth/grants', admin, {
        actor_id: 'team-payments-operator',
        role_id: 'r-admin',
        scope: 'team:payments',
      });
      expect(scopedAdmin.status).toBe(400);
      expect((await api('GET', '/api/v1/auth/check?permission=cert.fly', scopedKey)).status).toBe(400);
    });
  });

  it('serves the permission catalogue with the default roles holding each permission', async () => {
    const response = await api('GET', '/api/v1/auth/permissions', admin);
    expect(response.status).toBe(200);
    const catalogue = response.json() as { total: number; data: { name: string; default_roles: string[] }[] };
    expect(catalogue.data.map((p) => p.name)).toEqual([...PERMISSIONS]);
    expect(catalogue.data.find((p) => p.name === 'audit.export')?.default_roles).toEqual([
      'r-admin',
      'r-auditor',
    ]);
    expect((await api('GET', '/api/v1/auth/permissions', keys['r-viewer'])).status).toBe(403);
  });

  it('refuses an unknown role with 400', async () => {
    const response = await api('POST', '/api/v1/auth/api-keys', admin, {
      name: 'ghost',
      role_ids: ['r-ghost'],
    });
    expect(response.status).toBe(400);
  });
});
