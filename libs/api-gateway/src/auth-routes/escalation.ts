import { CertlaneError, DEFAULT_ROLES, ErrorCode } from '@certlane/contracts';
import { Actor } from '../auth/actor';

/**
 * No privilege escalation through role administration (ADR 0014 amendment, 2026-11): a caller
 * who is not an admin may put into a role, or hand out with a grant or a new key, only
 * permissions it holds globally itself. Without this rule, auth.role.create or auth.role.edit
 * plus auth.role.assign would let a caller give itself (or an actor it controls) any
 * permission but the admin flag. Roles and new keys are checked here (the permissions of a default
 * role are known here); grants and group mappings, of custom roles too, by the auth service,
 * which gets the caller's rights with the command (callerRights).
 */
export function permissionsBeyond(actor: Actor | undefined, permissions: readonly string[]): string[] {
  if (actor?.admin) return [];
  const held = actor?.permissions ?? new Set<string>();
  return [...new Set(permissions)].filter((permission) => !held.has(permission));
}

/** 403 when `permissions` holds one the (non-admin) actor lacks; `what` names the change. */
export function assertNoEscalation(
  actor: Actor | undefined,
  permissions: readonly string[],
  what: string,
): void {
  const beyond = permissionsBeyond(actor, permissions);
  if (beyond.length === 0) return;
  const shown = `${beyond.slice(0, 5).join(', ')}${beyond.length > 5 ? ', ...' : ''}`;
  throw new CertlaneError(
    ErrorCode.Forbidden,
    `${what} would hand out permissions you do not hold: ${shown}`,
    {
      permission: beyond[0],
    },
  );
}

/** The permissions of a default role, or none for a custom one (checked by the auth service). */
export function defaultRolePermissions(roleId: string): readonly string[] {
  return DEFAULT_ROLES[roleId]?.permissions ?? [];
}

/**
 * The caller's rights, sent with a command that hands out a role, so the auth service (which
 * knows the permissions of custom roles too) checks it: grants and OIDC group mappings.
 */
export function callerRights(actor: Actor | undefined): {
  caller_admin: boolean;
  caller_permissions: string[];
} {
  return { caller_admin: actor?.admin ?? false, caller_permissions: [...(actor?.permissions ?? [])] };
}
