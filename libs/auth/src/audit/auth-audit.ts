import { AuditOutcome, AuditRecord } from '@certlane/contracts';

/** Who asked for an operation, from the bus request context. */
export interface AuthCaller {
  actorId: string;
  requestId?: string;
}

export function callerOf(context: { actor_id?: string; request_id?: string }): AuthCaller {
  return { actorId: context.actor_id ?? 'unknown', requestId: context.request_id };
}

/** One audit record of the auth service (category `auth`, spec 6.1). Details never hold secrets. */
export function authAudit(
  action: string,
  caller: AuthCaller,
  resource: { type: string; id: string },
  outcome: AuditOutcome = 'success',
  details?: Record<string, unknown>,
): AuditRecord {
  return {
    action,
    event_category: 'auth',
    actor_id: caller.actorId,
    resource_type: resource.type,
    resource_id: resource.id,
    outcome,
    ...(caller.requestId ? { request_id: caller.requestId } : {}),
    ...(details ? { details } : {}),
  };
}
