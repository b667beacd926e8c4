/** A grant without a scope applies everywhere. */
export const GLOBAL_SCOPE = '*';

/** Kinds of resource a grant can be scoped to. */
export const GRANT_SCOPE_KINDS = [
  'team',
  'owner',
  'profile',
  'issuer',
  'certificate',
  'target',
  'agent',
  'tenant',
] as const;

/** `*`, or `<kind>:<id>` such as `team:payments` or `certificate:mc-api-prod`. */
export const GRANT_SCOPE_PATTERN = new RegExp(
  `^(\\*|(${GRANT_SCOPE_KINDS.join('|')}):[A-Za-z0-9][A-Za-z0-9._-]{0,127})$`,
);

/** What an actor may do: permissions held everywhere, and permissions held only within a scope. */
export interface PermissionGrants {
  global: ReadonlySet<string>;
  scoped: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Spec 5.3: a global grant beats a specific one. Without a scope only global permissions count;
 * with a scope, a global grant or a grant for exactly that scope does.
 */
export function isPermitted(grants: PermissionGrants, permission: string, scope?: string): boolean {
  if (grants.global.has(permission)) return true;
  if (!scope || scope === GLOBAL_SCOPE) return false;
  return grants.scoped.get(scope)?.has(permission) ?? false;
}

/** Which grant allows it, for explanations: `global`, `scope`, or null when nothing does. */
export function permittedBy(
  grants: PermissionGrants,
  permission: string,
  scope?: string,
): 'global' | 'scope' | null {
  if (grants.global.has(permission)) return 'global';
  return isPermitted(grants, permission, scope) ? 'scope' : null;
}
