import { CertlaneError, ErrorCode } from '@certlane/contracts';

/** The caller's own rights, as the gateway sends them with a command that hands out a role. */
export interface CallerRights {
  caller_admin: boolean;
  caller_permissions: readonly string[];
}

/**
 * No privilege escalation by handing out a role (ADR 0014): a caller who is not an admin may
 * hand out (grant, map a group to) only a role whose permissions it holds globally itself, and
 * never r-admin. Checked here, where the permissions of custom roles are known.
 */
export function assertMayHandOut(
  rights: CallerRights,
  role: { id: string; permissions: readonly string[] },
  what: string,
): void {
  if (rights.caller_admin) return;
  if (role.id === 'r-admin') {
    throw new CertlaneError(ErrorCode.Forbidden, `only an admin can hand out r-admin (${what})`);
  }
  const held = new Set(rights.caller_permissions);
  const beyond = role.permissions.filter((permission) => !held.has(permission));
  if (beyond.length === 0) return;
  const shown = `${beyond.slice(0, 5).join(', ')}${beyond.length > 5 ? ', ...' : ''}`;
  throw new CertlaneError(
    ErrorCode.Forbidden,
    `${what} would hand out permissions you do not hold: ${shown}`,
    { permission: beyond[0] },
  );
}
