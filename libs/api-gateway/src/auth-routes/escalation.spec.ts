import { CertlaneError, DEFAULT_ROLES } from '@certlane/contracts';
import { API_KEY_ROUTES } from './api-key.routes';
import { ROLE_ROUTES } from './role.routes';
import { Actor, NO_SCOPED_PERMISSIONS } from '../auth/actor';
import { permissionsBeyond } from './escalation';

const actor = (permissions: string[], admin = false): Actor => ({
  id: 'mallory',
  kind: 'api-key',
  admin,
  roleIds: [],
  permissions: new Set(permissions),
  scopedPermissions: NO_SCOPED_PERMISSIONS,
});

/** A role manager who is not an admin: it may manage roles, but holds little else. */
const manager = actor(['auth.role.create', 'auth.role.edit', 'auth.role.assign', 'auth.key.create']);

const route = (routes: readonly unknown[], method: string, path: string) => {
  const found = (routes as { method: string; path: string; check?: (input: unknown) => void }[]).find(
    (r) => r.method === method && r.path === path,
  );
  if (!found?.check) throw new Error(`no check on ${method} ${path}`);
  return found.check;
};

const refusal = (run: () => void) => {
  try {
    run();
  } catch (error) {
    return error instanceof CertlaneError ? error.code : error;
  }
  return undefined;
};

describe('no privilege escalation through role administration', () => {
  it('refuses a role with a permission the non-admin caller lacks, on create and on edit', () => {
    const create = route(ROLE_ROUTES, 'POST', '/api/v1/auth/roles');
    const edit = route(ROLE_ROUTES, 'PUT', '/api/v1/auth/roles/:id');
    const body = { id: 'r-escalate', permissions: ['auth.breakglass.admin', 'auth.role.assign'] };
    expect(refusal(() => create({ body, actor: manager, params: {}, query: {} }))).toBe('forbidden');
    expect(refusal(() => edit({ body, actor: manager, params: { id: 'r-x' }, query: {} }))).toBe('forbidden');
    const own = { id: 'r-fine', permissions: ['auth.role.assign'] };
    expect(refusal(() => create({ body: own, actor: manager, params: {}, query: {} }))).toBeUndefined();
    expect(
      refusal(() => edit({ body: { description: 'x' }, actor: manager, params: {}, query: {} })),
    ).toBeUndefined();
    const admin = actor([], true);
    expect(refusal(() => create({ body, actor: admin, params: {}, query: {} }))).toBeUndefined();
  });

  it('refuses a key with a default role holding permissions the caller lacks', () => {
    const createKey = route(API_KEY_ROUTES, 'POST', '/api/v1/auth/api-keys');
    const key = { name: 'sidekick', role_ids: ['r-auditor'] };
    expect(refusal(() => createKey({ body: key, actor: manager, params: {}, query: {} }))).toBe('forbidden');
    const auditorManager = actor([...manager.permissions, ...DEFAULT_ROLES['r-auditor'].permissions]);
    expect(
      refusal(() => createKey({ body: key, actor: auditorManager, params: {}, query: {} })),
    ).toBeUndefined();
  });

  it("sends the caller's rights with a grant, for the auth service to check any role", () => {
    const grant = ROLE_ROUTES.find((r) => r.method === 'POST' && r.path === '/api/v1/auth/grants')!;
    const payload = (grant as unknown as { payload: (input: unknown) => Record<string, unknown> }).payload({
      body: { actor_id: 'mallory', role_id: 'r-cli' },
      actor: manager,
      params: {},
      query: {},
    });
    expect(payload).toMatchObject({ caller_admin: false, caller_permissions: [...manager.permissions] });
  });

  it('lets an admin hand out anything', () => {
    expect(permissionsBeyond(actor([], true), ['auth.breakglass.admin'])).toEqual([]);
    expect(permissionsBeyond(undefined, ['audit.read'])).toEqual(['audit.read']);
  });
});
