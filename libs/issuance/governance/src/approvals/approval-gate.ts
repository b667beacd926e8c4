import { Inject, Injectable } from '@nestjs/common';
import {
  CertlaneError,
  ErrorCode,
  JobType,
  ProfileChanges,
  RequestContext,
  SYSTEM_ACTOR,
  UNKNOWN_ACTOR,
} from '@certlane/contracts';
import {
  ApprovalVerdict,
  decideApproval,
  ENROLLMENT_EXPIRY_REJECTION,
  producesVersion,
} from '@certlane/issuance-domain';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { approvalDto, ApprovalRepository, ApprovalRow, EnrollmentRequest } from './approval.repository';
import { notFound } from '@certlane/issuance-data-access';

export const approvalNotFound = (id: string) => notFound(ErrorCode.ApprovalNotFound, 'approval', id);

/**
 * Opens and decides approval requests inside the caller's transaction (ADR 0025). Used by the
 * job creation path (a profile that requires approval holds issuance and renewal jobs in
 * AwaitingApproval), the job routes (approve/reject/cancel of a held job decide its approval by
 * the same rules), the profile edit path and the approval routes. Each change publishes
 * `issuance.v1.approval.requested` or `.decided` through the outbox; audit records are the
 * caller's (one per route).
 */
@Injectable()
export class ApprovalGate {
  constructor(
    private readonly approvals: ApprovalRepository,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
  ) {}

  /** Whether a new job of this type on a certificate with this profile waits for approval. */
  async holdsJob(manager: EntityManager, type: JobType, profileId: string): Promise<boolean> {
    return producesVersion(type) && (await this.approvals.profileRequiresApproval(manager, profileId));
  }

  /** The cert_issuance approval of a job just created in AwaitingApproval. */
  async openIssuance(
    manager: EntityManager,
    job: { id: string; certificate_id: string; requested_by: string },
    profileId: string,
    context: RequestContext | undefined,
  ): Promise<ApprovalRow> {
    return this.open(
      manager,
      {
        approval_kind: 'cert_issuance',
        certificate_id: job.certificate_id,
        job_id: job.id,
        profile_id: profileId,
        payload: null,
        requested_by: job.requested_by,
      },
      context,
    );
  }

  /**
   * The cert_issuance approval of an external enrollment (ADR 0065), or the one the same
   * `key` opened before; `approval.requested` is published only for a new one.
   */
  async openEnrollment(
    manager: EntityManager,
    enrollment: Parameters<ApprovalRepository['insertEnrollment']>[1] & { request: EnrollmentRequest },
    context: RequestContext | undefined,
  ): Promise<ApprovalRow> {
    const { row, created } = await this.approvals.insertEnrollment(manager, enrollment);
    if (created)
      await this.outbox.add(manager, 'issuance.v1.approval.requested', approvalDto(row), context?.actor_id);
    return row;
  }

  async openProfileEdit(
    manager: EntityManager,
    profileId: string,
    payload: ProfileChanges,
    context: RequestContext | undefined,
  ): Promise<ApprovalRow> {
    return this.open(
      manager,
      {
        approval_kind: 'profile_edit',
        certificate_id: null,
        job_id: null,
        profile_id: profileId,
        payload: payload as Record<string, unknown>,
        requested_by: context?.actor_id || UNKNOWN_ACTOR,
      },
      context,
    );
  }

  private async open(
    manager: EntityManager,
    approval: Parameters<ApprovalRepository['insert']>[1],
    context: RequestContext | undefined,
  ): Promise<ApprovalRow> {
    const row = await this.approvals.insert(manager, approval);
    await this.outbox.add(manager, 'issuance.v1.approval.requested', approvalDto(row), context?.actor_id);
    return row;
  }

  /**
   * Decides a pending approval (locked here): 409 approval_not_pending when decided already,
   * 403 approval_self_decision when the requester approves their own request (nothing changes).
   */
  async decide(
    manager: EntityManager,
    id: string,
    verdict: ApprovalVerdict,
    context: RequestContext | undefined,
    reason = '',
  ): Promise<ApprovalRow> {
    const approval = await this.approvals.find(id, manager, true);
    if (!approval) throw approvalNotFound(id);
    return this.apply(manager, approval, verdict, context, reason);
  }

  /**
   * The job routes: approving, rejecting or cancelling a job decides its pending approval by the
   * same rules (null when the job has none, e.g. a job held before approvals existed).
   * `cancel` rejects the approval without the requester rule.
   */
  async decideForJob(
    manager: EntityManager,
    jobId: string,
    verdict: ApprovalVerdict | 'cancel',
    context: RequestContext | undefined,
    reason = '',
  ): Promise<ApprovalRow | null> {
    const approval = await this.approvals.pendingForJob(manager, jobId);
    if (!approval) return null;
    return verdict === 'cancel'
      ? this.apply(manager, approval, 'reject', context, reason || 'job cancelled')
      : this.apply(manager, approval, verdict, context, reason);
  }

  /** Pending edits of a profile being deleted are rejected with it. */
  async rejectEditsOf(
    manager: EntityManager,
    profileId: string,
    context: RequestContext | undefined,
  ): Promise<ApprovalRow[]> {
    const pending = await this.approvals.pendingEditsOf(manager, profileId);
    const decided: ApprovalRow[] = [];
    for (const approval of pending) {
      decided.push(await this.apply(manager, approval, 'reject', context, 'profile deleted'));
    }
    return decided;
  }

  /**
   * The expiry sweep (ADR 0065, amended): rejects up to `limit` external enrollments nobody
   * decided before their deadline (`enrollmentExpired` at `now`), each published as decided.
   */
  async rejectExpiredEnrollments(manager: EntityManager, now: Date, limit: number): Promise<ApprovalRow[]> {
    const rows = await this.approvals.rejectExpiredEnrollments(
      manager,
      now,
      limit,
      ENROLLMENT_EXPIRY_REJECTION,
    );
    await this.outbox.addMany(manager, 'issuance.v1.approval.decided', rows.map(approvalDto), SYSTEM_ACTOR);
    return rows;
  }

  private async apply(
    manager: EntityManager,
    approval: ApprovalRow,
    verdict: ApprovalVerdict,
    context: RequestContext | undefined,
    reason: string,
  ): Promise<ApprovalRow> {
    const decision = decideApproval(approval, context?.actor_id, verdict);
    if (!decision.ok) {
      throw new CertlaneError(
        decision.refusal === 'self_decision' ? ErrorCode.ApprovalSelfDecision : ErrorCode.ApprovalNotPending,
        decision.message,
        { approval_id: approval.id, status: approval.status },
      );
    }
    const row = await this.approvals.decide(
      manager,
      approval.id,
      decision.to,
      context?.actor_id || UNKNOWN_ACTOR,
      reason,
    );
    await this.outbox.add(manager, 'issuance.v1.approval.decided', approvalDto(row), context?.actor_id);
    return row;
  }
}
