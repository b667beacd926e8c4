import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../pagination/page';

/** Spec 2.10: what an approval request gates. */
export const APPROVAL_KINDS = ['cert_issuance', 'profile_edit'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** An approval request (spec 2.10, section 3; docs/decisions/0025-profiles-and-approvals.md). */
export interface ApprovalDto {
  id: string;
  approval_kind: ApprovalKind;
  status: ApprovalStatus;
  /** Set for cert_issuance, null for profile_edit. */
  certificate_id: string | null;
  job_id: string | null;
  /** The profile that asked for approval (cert_issuance) or is being edited (profile_edit). */
  profile_id: string | null;
  /** profile_edit: the pending change (the PUT body's fields); null for cert_issuance. */
  payload: Record<string, unknown> | null;
  requested_by: string;
  decided_by: string | null;
  decided_at: string | null;
  reason: string;
  created_at: string;
}

export class ListApprovalsRequest extends PageQuery {
  @IsOptional()
  @IsIn(APPROVAL_STATUSES as unknown as string[], {
    message: `status must be one of ${APPROVAL_STATUSES.join(', ')}`,
  })
  status?: ApprovalStatus;

  @IsOptional()
  @IsIn(APPROVAL_KINDS as unknown as string[], {
    message: `approval_kind must be one of ${APPROVAL_KINDS.join(', ')}`,
  })
  approval_kind?: ApprovalKind;
}

export class ApprovalIdRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  id!: string;
}

/** The optional body of POST /api/v1/approvals/{id}/approve and /reject. */
export class DecideApprovalBody {
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}

export class DecideApprovalRequest extends ApprovalIdRequest {
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}

/** Events issuance.v1.approval.requested and issuance.v1.approval.decided carry the approval. */
export type ApprovalEvent = ApprovalDto;
