import { ApprovalStatus, EnrollmentState, JobStatus, JobType, SYSTEM_ACTOR } from '@certlane/contracts';
import { KeyGeneration, producesVersion } from '../certificates/lifecycle';

export type ApprovalVerdict = 'approve' | 'reject';

export type ApprovalDecision =
  | { ok: true; to: Exclude<ApprovalStatus, 'pending'> }
  | { ok: false; refusal: 'not_pending' | 'self_decision'; message: string };

/**
 * Spec section 3: only a pending approval is decided; the decider of an approve must differ from
 * the requester (403, the approval stays pending). A reject by the requester is allowed: it
 * withdraws the request. A decider without an identity (no actor) is refused for approve.
 */
export function decideApproval(
  approval: {
    id: string;
    status: ApprovalStatus;
    requested_by: string;
    /** An external enrollment's deadline (ADR 0065): after it, it can only be rejected. */
    enrollment_expires_at?: Date | null;
  },
  decider: string | undefined,
  verdict: ApprovalVerdict,
  now: Date = new Date(),
): ApprovalDecision {
  if (approval.status !== 'pending') {
    return {
      ok: false,
      refusal: 'not_pending',
      message: `approval ${approval.id} is already ${approval.status}`,
    };
  }
  if (
    verdict === 'approve' &&
    approval.enrollment_expires_at &&
    approval.enrollment_expires_at.getTime() <= now.getTime()
  ) {
    return {
      ok: false,
      refusal: 'not_pending',
      message: `approval ${approval.id} expired at ${approval.enrollment_expires_at.toISOString()}`,
    };
  }
  if (verdict === 'approve' && (!decider || decider === approval.requested_by)) {
    return {
      ok: false,
      refusal: 'self_decision',
      message: `approval ${approval.id} was requested by ${approval.requested_by}; another actor must approve it`,
    };
  }
  return { ok: true, to: verdict === 'approve' ? 'approved' : 'rejected' };
}

/**
 * Where an approved job goes (ADR 0024): an issuance or renewal waits for the agent's CSR in agent
 * key generation, everything else (server-mode issuance included) is Pending.
 */
export function approvedJobStatus(
  type: JobType,
  mode: KeyGeneration,
): Extract<JobStatus, 'Pending' | 'AwaitingCSR'> {
  return producesVersion(type) && mode === 'agent' ? 'AwaitingCSR' : 'Pending';
}

/** A new issuance or renewal job waits for approval when its certificate's profile asks for it. */
export function needsIssuanceApproval(type: JobType, profileRequiresApproval: boolean): boolean {
  return producesVersion(type) && profileRequiresApproval;
}

/**
 * How the expiry sweep rejects an external enrollment nobody decided before its deadline (ADR
 * 0065, amended): by the system, with this reason.
 */
export const ENROLLMENT_EXPIRY_REJECTION = { decided_by: SYSTEM_ACTOR, reason: 'expired' } as const;

/** Whether an approval is an external enrollment still pending at or after its deadline. */
export function enrollmentExpired(
  approval: { status: ApprovalStatus; enrollment_expires_at: Date | null },
  now: Date,
): boolean {
  return (
    approval.status === 'pending' &&
    approval.enrollment_expires_at !== null &&
    approval.enrollment_expires_at.getTime() <= now.getTime()
  );
}

/**
 * Where an external enrollment stands (ADR 0065), as the protocol that asked answers its client:
 * rejected; expired (pending after its deadline, or rejected for it by the expiry sweep); issued
 * or failed once approved and issued; pending otherwise (waiting for a decision, or approved and
 * not issued yet).
 */
export function enrollmentState(
  approval: {
    status: ApprovalStatus;
    enrollment_expires_at: Date | null;
    enrollment_certificate_pem: string | null;
    enrollment_error: string | null;
    decided_by?: string | null;
    reason?: string;
  },
  now: Date,
): EnrollmentState {
  if (approval.status === 'rejected')
    return approval.decided_by === ENROLLMENT_EXPIRY_REJECTION.decided_by &&
      approval.reason === ENROLLMENT_EXPIRY_REJECTION.reason
      ? 'expired'
      : 'rejected';
  if (approval.status === 'approved') {
    if (approval.enrollment_certificate_pem) return 'issued';
    return approval.enrollment_error ? 'failed' : 'pending';
  }
  return enrollmentExpired(approval, now) ? 'expired' : 'pending';
}

/** A pending external enrollment waits this long for a decision unless its protocol says otherwise. */
export const ENROLLMENT_DEFAULT_TTL_SECONDS = 7 * 24 * 3600;

/**
 * When an external enrollment's approval expires (ADR 0065, ADR 0068): its TTL from `now` (7 days
 * unless the protocol gives one), never past the protocol's absolute deadline (an ACME order's
 * expiry).
 */
export function enrollmentExpiry(
  request: { expires_in_seconds?: number; expires_at?: string },
  now: number,
): Date {
  const byTtl = now + (request.expires_in_seconds ?? ENROLLMENT_DEFAULT_TTL_SECONDS) * 1000;
  return new Date(request.expires_at === undefined ? byTtl : Math.min(byTtl, Date.parse(request.expires_at)));
}
