import { AGENT_ACTOR_PREFIX, KeyManager } from '@certlane/contracts';

/** The key being created, rotated or deleted, as far as the rules below need it. */
export interface ManagedKey {
  /** The key's own admin flag (an admin key is the whole catalogue). */
  admin: boolean;
  actorId: string;
  /** What the key's actor holds: its global permissions, and its scoped ones as `permission@scope`. */
  actorPermissions: readonly string[];
}

/**
 * Whether `manager` may create, rotate or delete `key` (ADR 0014 amendment): a key acts with its
 * actor's grants, and rotating one hands out a working secret for it, so a manager who is not an
 * admin may handle only keys that can do nothing they cannot: no admin key, no key of an actor
 * holding a permission they lack, and no agent key (those come and go with agent registration).
 * The reason when refused, else null. Without a manager (another service over the bus) every key.
 */
export function keyManagementRefusal(manager: KeyManager | undefined, key: ManagedKey): string | null {
  if (!manager || manager.admin) return null;
  if (key.admin) return 'only an admin can manage an admin key';
  if (key.actorId.startsWith(AGENT_ACTOR_PREFIX))
    return 'agent keys are made by agent registration and end with the agent';
  const held = new Set(manager.permissions);
  const beyond = key.actorPermissions.filter((permission) => !held.has(permission.split('@')[0]));
  if (beyond.length > 0)
    return `the key's actor ${key.actorId} holds permissions you do not: ${beyond.slice(0, 5).join(', ')}${beyond.length > 5 ? ', ...' : ''}`;
  return null;
}
