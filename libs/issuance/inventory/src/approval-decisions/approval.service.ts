import { Inject, Injectable } from '@nestjs/common';
import {
  ApprovalDto,
  AuditAction,
  AuditRecord,
  DecideApprovalRequest,
  ListApprovalsRequest,
  Page,
  ProfileChanges,
  RequestContext,
  resolvePage,
} from '@certlane/contracts';
import { applyProfileChanges, approvedJobStatus, producesVersion } from '@certlane/issuance-domain';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { StatusTransitions } from '../certificates/status-transitions';
import { ServerIssuanceRunner } from '../certificates/server-issuance.runner';
import {
  approvalDto,
  ApprovalGate,
  approvalNotFound,
  ApprovalRepository,
  ApprovalRow,
  profileAudit,
  profileDto,
  profileNotFound,
  ProfileRepository,
} from '@certlane/issuance-governance';
import { auditRecord, UnitOfWork } from '@certlane/issuance-data-access';
import { CERTLANE_CONFIG, CertlaneConfig } from '@certlane/platform';

/** Issuance approvals are certificate lifecycle, profile edits configuration (spec 6.1). */
const approvalAudit = (
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
    { approval_kind: approval.approval_kind, requested_by: approval.requested_by, ...details },
  );

/** Approval requests (spec 2.10, section 3; ADR 0025): list, read, approve, reject. */
@Injectable()
export class ApprovalService {
  constructor(
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    private readonly unitOfWork: UnitOfWork,
    private readonly approvals: ApprovalRepository,
    private readonly gate: ApprovalGate,
    private readonly profiles: ProfileRepository,
    private readonly transitions: StatusTransitions,
    private readonly runner: ServerIssuanceRunner,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
  ) {}

  list(request: ListApprovalsRequest): Promise<Page<ApprovalDto>> {
    return this.approvals.list(request, resolvePage(request));
  }

  async get(id: string): Promise<ApprovalDto> {
    const row = await this.approvals.find(id);
    if (!row) throw approvalNotFound(id);
    return approvalDto(row);
  }

  /**
   * cert_issuance: the job leaves AwaitingApproval through the job machine (AwaitingCSR in agent
   * key generation, else Pending, and in server mode it is issued before the answer);
   * profile_edit: the stored payload is applied and `profile.edit_applied` written.
   */
  async approve(request: DecideApprovalRequest, context?: RequestContext): Promise<ApprovalDto> {
    const approval = await this.approvals.find(request.id);
    if (!approval) throw approvalNotFound(request.id);
    const reason = request.reason?.trim() ?? '';
    if (approval.approval_kind === 'profile_edit') {
      const decided = await this.unitOfWork.run(async (manager) => {
        // Lock order: the profile, then its approvals (as profile delete does).
        const profile = await this.profiles.find(approval.profile_id as string, manager, 'update');
        const decided = await this.gate.decide(manager, approval.id, 'approve', context, reason);
        if (!profile) throw profileNotFound(approval.profile_id as string);
        const payload = (decided.payload ?? {}) as ProfileChanges;
        const { fields } = applyProfileChanges(profile, payload);
        const dto = profileDto(await this.profiles.update(manager, profile.id, fields));
        await this.outbox.add(manager, 'issuance.v1.profile.updated', dto, context?.actor_id);
        await this.outbox.audit(
          manager,
          profileAudit(AuditAction.ProfileEditApplied, profile.id, context, {
            approval_id: decided.id,
            requested_by: decided.requested_by,
            changed_fields: Object.keys(payload).sort(),
            profile: dto,
          }),
        );
        return decided;
      });
      return approvalDto(decided);
    }
    const { decided, job } = await this.unitOfWork.run(async (manager) => {
      // Lock order: the certificate, its job, then the approval (as the job routes do).
      const { job, certificate } = await this.transitions.lockJob(manager, approval.job_id as string);
      const decided = await this.gate.decide(manager, approval.id, 'approve', context, reason);
      const changed = await this.transitions.transitionJob(
        manager,
        job,
        certificate,
        { kind: 'approve', next: approvedJobStatus(job.type, this.config.keygenMode) },
        context,
      );
      await this.outbox.audit(
        manager,
        approvalAudit(AuditAction.ApprovalApproved, decided, context, {
          certificate_id: decided.certificate_id,
          job_id: decided.job_id,
          job_status: changed.job.status,
        }),
      );
      return { decided, job: changed.job };
    });
    if (this.runner.enabled && producesVersion(job.type)) await this.runner.run(job.id);
    return approvalDto(decided);
  }

  /**
   * cert_issuance: the job is rejected (Cancelled, the reason in last_error) and the certificate
   * gets back what its dates say; profile_edit: the change is discarded.
   */
  async reject(request: DecideApprovalRequest, context?: RequestContext): Promise<ApprovalDto> {
    const approval = await this.approvals.find(request.id);
    if (!approval) throw approvalNotFound(request.id);
    const reason = request.reason?.trim() || 'rejected';
    const decided = await this.unitOfWork.run(async (manager) => {
      let details: Record<string, unknown> = { reason };
      let decided: ApprovalRow;
      if (approval.approval_kind === 'cert_issuance') {
        const { job, certificate } = await this.transitions.lockJob(manager, approval.job_id as string);
        decided = await this.gate.decide(manager, approval.id, 'reject', context, reason);
        const changed = await this.transitions.transitionJob(
          manager,
          job,
          certificate,
          { kind: 'reject' },
          context,
          {
            error: reason,
          },
        );
        details = {
          ...details,
          certificate_id: decided.certificate_id,
          job_id: decided.job_id,
          job_status: changed.job.status,
          certificate_status: changed.certificate.status,
        };
      } else {
        decided = await this.gate.decide(manager, approval.id, 'reject', context, reason);
        details = { ...details, profile_id: decided.profile_id };
      }
      await this.outbox.audit(
        manager,
        approvalAudit(AuditAction.ApprovalRejected, decided, context, details),
      );
      return decided;
    });
    return approvalDto(decided);
  }
}
