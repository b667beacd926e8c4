import { auditOrigin, AuditCategory, AuditRecord, RequestContext } from '@certlane/contracts';

/** The audit record of one change to a notifier-owned resource, written in the change's transaction. */
export function notifierAudit(
  resourceType: 'notifier' | 'routing_rule' | 'contact' | 'notification' | 'digest',
  action: string,
  id: string,
  context: RequestContext | undefined,
  details: Record<string, unknown>,
  category: AuditCategory = 'config',
): AuditRecord {
  return {
    action,
    event_category: category,
    ...auditOrigin(context),
    resource_type: resourceType,
    resource_id: id,
    outcome: 'success',
    details,
  };
}
