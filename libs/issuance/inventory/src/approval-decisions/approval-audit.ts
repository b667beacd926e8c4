import { AuditRecord, RequestContext } from '@certlane/contracts';
import { auditRecord } from '@certlane/issuance-data-access';
import { ApprovalRow } from '@certlane/issuance-governance';

/** Issuance approvals are certificate lifecycle, profile edits configuration (spec 6.1). */
export const approvalAudit = (
  action: string,
  approval: ApprovalRow,
  context: RequestContext | undefined,
  details: Record<string, unknown>,
): AuditRecord =>
  auditRecord(
    approval.approval_kind === 'cert_issuance' ? 'cert_lifecycle' : 'config',
    'approval',
    action,
    approval.id,
    context,
    {
      approval_kind: approval.approval_kind,
      requested_by: approval.requested_by,
      ...(approval.enrollment
        ? {
            enrollment: {
              source: approval.enrollment.source,
              subject: approval.enrollment.subject,
              reference: approval.enrollment.reference,
            },
          }
        : {}),
      ...details,
    },
  );
