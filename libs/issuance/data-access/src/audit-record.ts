import { AuditCategory, auditOrigin, AuditRecord } from '@certlane/contracts';

/**
 * The audit record of a successful action on one resource (spec 6.1): actor and request id from
 * the context (`fallbackActor` when it names none). Written in the action's unit of work.
 */
export function auditRecord(
  category: AuditCategory,
  resourceType: string,
  action: string,
  resourceId: string,
  context: { actor_id?: string; request_id?: string } | undefined,
  details: Record<string, unknown>,
  fallbackActor?: string,
): AuditRecord {
  return {
    action,
    event_category: category,
    ...auditOrigin(context, fallbackActor),
    resource_type: resourceType,
    resource_id: resourceId,
    outcome: 'success',
    details,
  };
}
