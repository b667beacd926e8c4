import { ApprovalStatus, JobStatus, JobType } from '@certlane/contracts';
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
  approval: { id: string; status: ApprovalStatus; requested_by: string },
  decider: string | undefined,
  verdict: ApprovalVerdict,
): ApprovalDecision {
  if (approval.status !== 'pending') {
    return {
      ok: false,
      refusal: 'not_pending',
      message: `approval ${approval.id} is already ${approval.status}`,
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
