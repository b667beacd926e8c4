import { Inject, Injectable } from '@nestjs/common';
import {
  ApprovalDto,
  AuditAction,
  CertlaneError,
  DecideApprovalRequest,
  DEFAULT_ISSUER_ID,
  EnrollmentApprovalOutcome,
  ErrorCode,
  ListApprovalsRequest,
  Page,
  ProfileChanges,
  RequestContext,
  RequestEnrollmentApprovalRequest,
  resolvePage,
} from '@certlane/contracts';
import {
  applyProfileChanges,
  approvedJobStatus,
  csrKeyAlgorithm,
  enrollmentExpiry,
  enrollmentState,
  producesVersion,
} from '@certlane/issuance-domain';
import { CertificationRequest, parseCsr } from '@certlane/pki';
import { LocalCaService } from '@certlane/issuance-ca';
import { CertlaneLogger, LOGGER, outboxToken, ServiceOutbox } from '@certlane/platform';
import { CertificateRepository } from '../certificates/certificate.repository';
import { CertificateService } from '../certificates/certificate.service';
import { renewedCertificate } from '../certificates/renewed-certificate';
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
import { UnitOfWork } from '@certlane/issuance-data-access';
import { approvalAudit } from './approval-audit';
import { CERTLANE_CONFIG, CertlaneConfig } from '@certlane/platform';

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
    private readonly localCa: LocalCaService,
    private readonly certificates: CertificateService,
    private readonly repository: CertificateRepository,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  /**
   * An enrollment protocol holds a CSR for approval (ADR 0065): a cert_issuance approval with the
   * CSR, its summary (read here, so approvers see what the CSR says, not what the protocol
   * claims), the issuer and the inventory fields. The same `reference_key` answers the approval
   * it opened before.
   */
  async requestEnrollment(
    request: RequestEnrollmentApprovalRequest,
    context?: RequestContext,
  ): Promise<ApprovalDto> {
    let csr: CertificationRequest;
    try {
      csr = parseCsr(request.csr_pem);
    } catch (error) {
      throw new CertlaneError(ErrorCode.CsrInvalid, `CSR refused: ${(error as Error).message}`, {
        field: 'csr_pem',
      });
    }
    const renewed =
      request.renews_certificate_pem === undefined
        ? null
        : renewedCertificate(request.renews_certificate_pem);
    const row = await this.unitOfWork.run(async (manager) => {
      const versionOf =
        request.version_of ?? (renewed && (await this.repository.currentVersionHolder(manager, renewed))?.id);
      return this.gate.openEnrollment(
        manager,
        {
          key: request.reference_key,
          profile_id: request.certificate_profile_id ?? null,
          requested_by: request.requested_by,
          expires_at: enrollmentExpiry(request, Date.now()),
          request: {
            source: request.source,
            // What will be certified: the CSR's names, or the protocol's replacements of them.
            subject:
              request.subject_common_name === undefined
                ? csr.subject.text
                : request.subject_common_name && `CN=${request.subject_common_name}`,
            dns_names: (request.sans ?? csr.subjectAltNames)
              .filter((n) => n.type === 'dns')
              .map((n) => n.value),
            key_algorithm: csrKeyAlgorithm(csr.publicKey),
            csr_pem: request.csr_pem,
            issuer_id: request.issuer_id ?? null,
            owner_id: request.owner_id ?? null,
            team_id: request.team_id ?? null,
            reference: request.reference,
            tags: request.tags ?? {},
            ...(request.validity_days ? { validity_days: request.validity_days } : {}),
            ...(request.not_before ? { not_before: request.not_before } : {}),
            ...(request.not_after ? { not_after: request.not_after } : {}),
            ...(request.must_staple ? { must_staple: true } : {}),
            ...(request.extended_key_usage ? { extended_key_usage: request.extended_key_usage } : {}),
            ...(request.sans ? { sans: request.sans } : {}),
            ...(request.subject_common_name === undefined
              ? {}
              : { subject_common_name: request.subject_common_name }),
            ...(versionOf ? { version_of: versionOf } : {}),
          },
        },
        context,
      );
    });
    return approvalDto(row);
  }

  /**
   * Where an external enrollment stands, with its certificate once issued. An approval whose
   * issuance did not happen (the approving process stopped after the decision) is issued here.
   */
  async enrollmentOutcome(id: string): Promise<EnrollmentApprovalOutcome> {
    let row = await this.approvals.find(id);
    if (!row?.enrollment) throw approvalNotFound(id);
    if (row.status === 'approved' && !row.enrollment_certificate_pem && !row.enrollment_error)
      row = await this.issueEnrollment(id, undefined);
    const state = enrollmentState(row, new Date());
    return {
      approval_id: row.id,
      state,
      certificate_pem: state === 'issued' ? row.enrollment_certificate_pem : null,
      chain_pem: state === 'issued' ? row.enrollment_chain_pem : null,
      alternate_chains_pem: state === 'issued' ? (row.enrollment_alternate_chains ?? []) : [],
      issuer_id: state === 'issued' ? (row.enrollment?.issuer_id ?? DEFAULT_ISSUER_ID) : null,
      serial_hex: state === 'issued' ? row.enrollment_serial_hex : null,
      certificate_id: state === 'issued' ? row.certificate_id : null,
      reason:
        state === 'rejected'
          ? row.reason
          : state === 'expired'
            ? 'expired'
            : state === 'failed'
              ? row.enrollment_error
              : null,
    };
  }

  /**
   * Issues an approved enrollment through the issuer and records it in the inventory, as the
   * enrollment protocols do at once (issue, then import with the protocol's source; a failed
   * import is logged, the certificate stands). The approval row is locked meanwhile, so
   * concurrent pickups issue once.
   */
  private async issueEnrollment(id: string, context: RequestContext | undefined): Promise<ApprovalRow> {
    return this.unitOfWork.run(async (manager) => {
      const row = await this.approvals.find(id, manager, true);
      if (!row?.enrollment) throw approvalNotFound(id);
      if (row.status !== 'approved' || row.enrollment_certificate_pem || row.enrollment_error) return row;
      const { enrollment } = row;
      let issued;
      try {
        issued = await this.localCa.issue(
          {
            csr_pem: enrollment.csr_pem,
            ...(enrollment.issuer_id ? { issuer_id: enrollment.issuer_id } : {}),
            ...(enrollment.validity_days ? { validity_days: enrollment.validity_days } : {}),
            ...(enrollment.not_before ? { not_before: enrollment.not_before } : {}),
            ...(enrollment.not_after ? { not_after: enrollment.not_after } : {}),
            ...(enrollment.must_staple ? { must_staple: true } : {}),
            ...(enrollment.extended_key_usage ? { extended_key_usage: enrollment.extended_key_usage } : {}),
            ...(enrollment.sans ? { sans: enrollment.sans } : {}),
            ...(enrollment.subject_common_name === undefined
              ? {}
              : { subject_common_name: enrollment.subject_common_name }),
          },
          context,
        );
      } catch (error) {
        return this.approvals.finishEnrollment(manager, id, {
          error: `issuance failed: ${(error as Error).message?.slice(0, 300) ?? 'error'}`,
        });
      }
      const certificateId = await this.certificates
        .create(
          {
            certificate_pem: issued.full_pem,
            source: enrollment.source,
            ...(enrollment.version_of ? { version_of: enrollment.version_of } : {}),
            ...(enrollment.owner_id ? { owner_id: enrollment.owner_id } : {}),
            ...(enrollment.team_id ? { team_id: enrollment.team_id } : {}),
            tags: enrollment.tags,
          },
          context,
        )
        .then((certificate) => certificate.id)
        .catch((error: unknown) => {
          this.logger.warn(
            { err: error, serial_hex: issued.serial_hex, approval_id: id },
            `${enrollment.source} certificate not recorded in the inventory`,
          );
          return null;
        });
      return this.approvals.finishEnrollment(manager, id, {
        certificate_pem: issued.certificate_pem,
        chain_pem: issued.chain_pem,
        alternate_chains_pem: issued.alternate_chains_pem ?? [],
        serial_hex: issued.serial_hex,
        certificate_id: certificateId,
      });
    });
  }

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
    if (approval.enrollment) {
      await this.unitOfWork.run(async (manager) => {
        const decided = await this.gate.decide(manager, approval.id, 'approve', context, reason);
        await this.outbox.audit(manager, approvalAudit(AuditAction.ApprovalApproved, decided, context, {}));
      });
      return approvalDto(await this.issueEnrollment(approval.id, context));
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
    if (this.runner.enabled && producesVersion(job.type)) await this.runner.runInline(job.id);
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
      if (approval.enrollment) {
        decided = await this.gate.decide(manager, approval.id, 'reject', context, reason);
      } else if (approval.approval_kind === 'cert_issuance') {
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
