import { GRANT_SCOPE_PATTERN, isPermitted, PermissionGrants, permittedBy } from './grant-scope';

const grants = (global: string[], scoped: Record<string, string[]> = {}): PermissionGrants => ({
  global: new Set(global),
  scoped: new Map(Object.entries(scoped).map(([scope, permissions]) => [scope, new Set(permissions)])),
});

describe('isPermitted', () => {
  it('allows a globally held permission with or without a scope', () => {
    const held = grants(['cert.read']);
    expect(isPermitted(held, 'cert.read')).toBe(true);
    expect(isPermitted(held, 'cert.read', 'team:payments')).toBe(true);
    expect(permittedBy(held, 'cert.read', 'team:payments')).toBe('global');
  });

  it('allows a scoped permission only within its own scope', () => {
    const held = grants([], { 'team:payments': ['cert.renew'] });
    expect(isPermitted(held, 'cert.renew', 'team:payments')).toBe(true);
    expect(permittedBy(held, 'cert.renew', 'team:payments')).toBe('scope');
    expect(isPermitted(held, 'cert.renew', 'team:search')).toBe(false);
    expect(isPermitted(held, 'cert.renew')).toBe(false);
    expect(isPermitted(held, 'cert.renew', '*')).toBe(false);
  });

  it('lets a global grant beat a narrower one: the scoped set does not restrict it', () => {
    const held = grants(['cert.delete'], { 'team:payments': ['cert.read'] });
    expect(isPermitted(held, 'cert.delete', 'team:payments')).toBe(true);
  });

  it('refuses what no grant holds', () => {
    expect(isPermitted(grants(['cert.read'], { 'team:a': ['cert.renew'] }), 'cert.delete', 'team:a')).toBe(
      false,
    );
    expect(permittedBy(grants([]), 'cert.delete', 'team:a')).toBeNull();
  });
});

describe('GRANT_SCOPE_PATTERN', () => {
  it.each(['*', 'team:payments', 'certificate:mc-api-prod', 'tenant:Default_1'])('accepts %s', (scope) => {
    expect(GRANT_SCOPE_PATTERN.test(scope)).toBe(true);
  });

  it.each(['', 'team', 'team:', 'planet:earth', 'team:a b', 'team:-x', '**'])('refuses %j', (scope) => {
    expect(GRANT_SCOPE_PATTERN.test(scope)).toBe(false);
  });
});
