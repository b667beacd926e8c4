import { keyManagementRefusal, ManagedKey } from './key-management';

const cli = {
  admin: false,
  permissions: ['auth.key.list', 'auth.key.create', 'auth.key.rotate', 'certificate.read'],
};
const key = (over: Partial<ManagedKey> = {}): ManagedKey => ({
  admin: false,
  actorId: 'ci-bot',
  actorPermissions: ['certificate.read'],
  ...over,
});

describe('keyManagementRefusal (ADR 0014 amendment)', () => {
  it('lets an admin, and another service over the bus, manage any key', () => {
    for (const manager of [{ admin: true, permissions: [] }, undefined])
      for (const target of [
        key({ admin: true }),
        key({ actorId: 'agent.a1' }),
        key({ actorPermissions: ['auth.role.assign'] }),
      ])
        expect(keyManagementRefusal(manager, target)).toBeNull();
  });

  it('lets a key manager handle a key that can do nothing it cannot, its own actor included', () => {
    expect(keyManagementRefusal(cli, key())).toBeNull();
    expect(keyManagementRefusal(cli, key({ actorPermissions: [] }))).toBeNull();
    // A global permission covers the same permission in any scope.
    expect(keyManagementRefusal(cli, key({ actorPermissions: ['certificate.read@team:a'] }))).toBeNull();
  });

  it('refuses an admin key to a manager who is not an admin', () => {
    expect(keyManagementRefusal(cli, key({ admin: true }))).toMatch(/admin key/);
  });

  it('refuses a key of an actor holding a permission the manager lacks, global or scoped, naming it', () => {
    expect(
      keyManagementRefusal(cli, key({ actorId: 'alice', actorPermissions: ['auth.role.assign'] })),
    ).toMatch(/alice holds permissions you do not: auth\.role\.assign/);
    expect(keyManagementRefusal(cli, key({ actorPermissions: ['certificate.revoke@team:a'] }))).toMatch(
      /certificate\.revoke@team:a/,
    );
  });

  it('refuses an agent key: those come and go with agent registration', () => {
    expect(keyManagementRefusal(cli, key({ actorId: 'agent.a1', actorPermissions: [] }))).toMatch(/agent/);
  });
});
