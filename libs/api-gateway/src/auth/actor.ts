import type { Request } from 'express';
import { PermissionGrants, RequestContext } from '@certlane/contracts';
import { requestIdOf } from '@certlane/platform';

/**
 * Who is calling: the env API key, a stored API key or a session cookie (both resolved by the
 * auth service), or the demo actor.
 */
export interface Actor {
  id: string;
  kind: 'service-secret' | 'api-key' | 'demo' | 'session';
  /** The session the request came with (kind `session`). */
  sessionId?: string;
  admin: boolean;
  roleIds: readonly string[];
  /** Global permissions: what route-level checks consult. */
  permissions: ReadonlySet<string>;
  /** Permissions that hold only within a scope (ADR 0019); checked with isPermitted. */
  scopedPermissions: ReadonlyMap<string, ReadonlySet<string>>;
}

export const NO_SCOPED_PERMISSIONS: ReadonlyMap<string, ReadonlySet<string>> = new Map();

/** The actor's grants in the shape the pure rule `isPermitted` takes. */
export function grantsOf(actor: Actor): PermissionGrants {
  return { global: actor.permissions, scoped: actor.scopedPermissions };
}

const ACTOR = Symbol('certlane.actor');

export function setActor(request: Request, actor: Actor): void {
  (request as unknown as Record<symbol, Actor>)[ACTOR] = actor;
}

export function actorOf(request: Request): Actor | undefined {
  return (request as unknown as Record<symbol, Actor | undefined>)[ACTOR];
}

/** The context a gateway request carries over the bus. */
export function busContext(request: Request): RequestContext {
  return { request_id: requestIdOf(request), actor_id: actorOf(request)?.id };
}
