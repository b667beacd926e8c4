import { Inject, Injectable } from '@nestjs/common';
import {
  AuditRecord,
  CertlaneError,
  ErrorCode,
  JobType,
  RequestContext,
  RevocationReason,
} from '@certlane/contracts';
import {
  CertificateEvent,
  initialJobStatus,
  Refusal,
  JobEvent,
  nextCertificateStatus,
  nextJobStatus,
  producesVersion,
  renewalMaxAttempts,
  statusByDates,
  versionJobRefusal,
} from '@certlane/issuance-domain';
import { CERTLANE_CONFIG, CertlaneConfig, outboxToken, ServiceOutbox } from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { ApprovalGate, PolicyEnforcer } from '@certlane/issuance-governance';
import { IssuerCapabilities } from '@certlane/issuance-ca';
import { JobRepository, JobRow } from '../jobs/job.repository';
import { CertificateRepository, CertificateRow, NewVersion, VersionRow } from './certificate.repository';
import { auditRecord, notFound } from '@certlane/issuance-data-access';

export const certificateNotFound = (id: string) => notFound(ErrorCode.CertificateNotFound, 'certificate', id);
export const jobNotFound = (id: string) => notFound(ErrorCode.JobNotFound, 'job', id);

const REFUSAL_CODES: Record<Refusal, ErrorCode> = {
  certificate_not_renewable: ErrorCode.CertificateNotRenewable,
  renewal_in_progress: ErrorCode.RenewalInProgress,
  certificate_not_on_hold: ErrorCode.CertificateNotOnHold,
};

/** Certificate lifecycle actions are `cert_lifecycle` (spec 6.1). */
export function lifecycleAudit(
  action: string,
  resourceType: 'certificate' | 'job',
  id: string,
  context: RequestContext | undefined,
  details: Record<string, unknown>,
): AuditRecord {
  return auditRecord('cert_lifecycle', resourceType, action, id, context, details);
}

/**
 * Every write that changes a certificate's or a job's status goes through here, inside the
 * caller's unit of work: the pure machines of libs/issuance/domain decide, the row is written and
 * the status-changed event joins the outbox in the same transaction. Lock order everywhere:
 * the certificate row first, then its job rows. Reads and other writes go to the repositories.
 */
@Injectable()
export class StatusTransitions {
  constructor(
    private readonly certificates: CertificateRepository,
    private readonly jobs: JobRepository,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    private readonly approvals: ApprovalGate,
    private readonly policies: PolicyEnforcer,
    private readonly issuers: IssuerCapabilities,
  ) {}

  async lockCertificate(manager: EntityManager, id: string): Promise<CertificateRow> {
    const row = await this.certificates.find(id, manager, true);
    if (!row) throw certificateNotFound(id);
    return row;
  }

  /** The job and its certificate, both locked (certificate first). */
  async lockJob(manager: EntityManager, id: string): Promise<{ job: JobRow; certificate: CertificateRow }> {
    const unlocked = await this.jobs.find(id, manager);
    if (!unlocked) throw jobNotFound(id);
    const certificate = await this.lockCertificate(manager, unlocked.certificate_id);
    const job = (await this.jobs.find(id, manager, true)) as JobRow;
    return { job, certificate };
  }

  /** What the dates of the current version say, with the certificate's renewal window. */
  async fallbackStatus(manager: EntityManager, certificate: CertificateRow) {
    const window = await this.certificates.renewalWindowDays(manager, certificate.renewal_policy_id);
    return statusByDates(certificate.expires_at, new Date(), window);
  }

  /**
   * Applies one event of the certificate machine; a refusal becomes its error code. `revocation`
   * records a revocation (`reason`) or clears it (`reason: null`, a released hold).
   */
  async applyCertificateEvent(
    manager: EntityManager,
    certificate: CertificateRow,
    event: CertificateEvent,
    context: RequestContext | undefined,
    revocation?: { reason: RevocationReason | null },
  ): Promise<CertificateRow> {
    const transition = nextCertificateStatus(certificate.status, event);
    if (!transition.ok) {
      throw new CertlaneError(REFUSAL_CODES[transition.refusal], transition.message, {
        status: certificate.status,
        revocation_reason: certificate.revocation_reason,
      });
    }
    if (transition.to === certificate.status && !revocation) return certificate;
    const row = await this.certificates.setStatus(manager, certificate.id, transition.to, revocation);
    if (transition.to !== certificate.status) {
      await this.outbox.add(
        manager,
        'issuance.v1.certificate.status-changed',
        {
          certificate_id: certificate.id,
          from: certificate.status,
          to: transition.to,
          at: row.updated_at.toISOString(),
        },
        context?.actor_id,
      );
    }
    return row;
  }

  /**
   * A new job on a certificate, in the initial status of the key-generation mode; an issuance or
   * renewal whose profile requires approval waits in AwaitingApproval with a cert_issuance
   * approval opened in the same transaction (ADR 0025). An issuance or renewal of a certificate
   * without an issuer is 400 certificate_not_renewable (ADR 0043), one whose issuer's kind has no
   * connector 501 not_implemented (ADR 0046), in agent key generation one without an agent 400
   * keygen_agent_missing (ADR 0042): `versionJobRefusal`.
   */
  async createJob(
    manager: EntityManager,
    certificate: CertificateRow,
    type: JobType,
    context: RequestContext | undefined,
    extra: { target_id?: string; version_id?: string | null; agent_id?: string } = {},
  ): Promise<JobRow> {
    const unconnected = producesVersion(type)
      ? await this.issuers.kindWithoutConnector(manager, certificate.issuer_id)
      : null;
    const refused = versionJobRefusal(type, this.config.keygenMode, certificate, unconnected);
    if (refused) throw new CertlaneError(refused.code, refused.message, { field: refused.field });
    const held = await this.approvals.holdsJob(manager, type, certificate.profile_id);
    const maxAttempts = producesVersion(type)
      ? renewalMaxAttempts({
          max_retries: await this.certificates.renewalMaxRetries(manager, certificate.renewal_policy_id),
        })
      : undefined;
    const job = await this.jobs.insert(manager, {
      max_attempts: maxAttempts,
      type,
      status: held ? 'AwaitingApproval' : initialJobStatus(type, this.config.keygenMode),
      certificate_id: certificate.id,
      agent_id: extra.agent_id ?? certificate.agent_id,
      target_id: extra.target_id ?? '',
      requested_by: context?.actor_id || 'system',
      version_id: extra.version_id ?? null,
    });
    await this.outbox.add(
      manager,
      'issuance.v1.job.created',
      {
        job_id: job.id,
        type: job.type,
        status: job.status,
        certificate_id: job.certificate_id,
        agent_id: job.agent_id,
        target_id: job.target_id,
      },
      context?.actor_id,
    );
    if (held) await this.approvals.openIssuance(manager, job, certificate.profile_id, context);
    return job;
  }

  /**
   * Moves a job through the job machine (400 job_invalid_transition on a refusal), publishes
   * issuance.v1.job.status-changed, and gives the certificate what the change means for it: a
   * failed issuance or renewal makes it Failed, a cancelled or rejected one sends it back to
   * what its dates say unless another renewal is still open. The certificate must be locked.
   */
  async transitionJob(
    manager: EntityManager,
    job: JobRow,
    certificate: CertificateRow,
    event: JobEvent,
    context: RequestContext | undefined,
    changes: { error?: string; versionId?: string } = {},
  ): Promise<{ job: JobRow; certificate: CertificateRow }> {
    const transition = nextJobStatus(job.status, event);
    if (!transition.ok) {
      throw new CertlaneError(ErrorCode.JobInvalidTransition, transition.message, { status: job.status });
    }
    const row = await this.jobs.setStatus(manager, job.id, transition.to, changes);
    await this.outbox.add(
      manager,
      'issuance.v1.job.status-changed',
      {
        job_id: job.id,
        type: job.type,
        certificate_id: job.certificate_id,
        from: job.status,
        to: transition.to,
        error: changes.error ?? '',
        at: row.updated_at.toISOString(),
      },
      context?.actor_id,
    );
    let cert = certificate;
    if (producesVersion(job.type) && transition.to === 'Failed') {
      cert = await this.applyCertificateEvent(manager, cert, { kind: 'renewal-failed' }, context);
    } else if (producesVersion(job.type) && transition.to === 'Cancelled') {
      cert = await this.applyCertificateEvent(
        manager,
        cert,
        {
          kind: 'renewal-abandoned',
          openRenewals: await this.jobs.openRenewals(manager, cert.id, job.id),
          fallback: await this.fallbackStatus(manager, cert),
        },
        context,
      );
    }
    return { job: row, certificate: cert };
  }

  /**
   * Cancels a job through the job machine (`reason`, when given, kept as its last_error); a job
   * held for approval has that approval rejected with it (ADR 0025). The certificate must be locked.
   */
  async cancelJob(
    manager: EntityManager,
    job: JobRow,
    certificate: CertificateRow,
    context: RequestContext | undefined,
    reason?: string,
  ): Promise<{ job: JobRow; certificate: CertificateRow }> {
    await this.approvals.decideForJob(manager, job.id, 'cancel', context, reason);
    return this.transitionJob(manager, job, certificate, { kind: 'cancel' }, context, { error: reason });
  }

  /**
   * Cancels the open issuance and renewal jobs of a certificate just revoked or archived (locked,
   * ADR 0024 amendment): a late CSR or approval would otherwise store a new version, moving a
   * revoked certificate back to Active or signing one for an archived record. The machine's
   * renewal-abandoned leaves either status as it is; approvals held for the jobs are withdrawn with
   * them. Returns the certificate as it ends and the cancelled job ids.
   */
  async withdrawVersionJobs(
    manager: EntityManager,
    certificate: CertificateRow,
    context: RequestContext | undefined,
    reason: string,
  ): Promise<{ certificate: CertificateRow; cancelled: string[] }> {
    const cancelled: string[] = [];
    let row = certificate;
    for (const job of await this.jobs.openVersionJobs(manager, [certificate.id], [])) {
      row = (await this.cancelJob(manager, job, row, context, reason)).certificate;
      cancelled.push(job.id);
    }
    return { certificate: row, cancelled };
  }

  /** Stores a version, makes it current, and sets the status its dates give (certificate locked). */
  async storeVersion(
    manager: EntityManager,
    certificate: CertificateRow,
    version: NewVersion,
    context: RequestContext | undefined,
  ): Promise<{ version: VersionRow; certificate: CertificateRow }> {
    // The UPDATE that makes the version current returns the row: no second read of the certificate.
    const { version: stored, certificate: updated } = await this.certificates.addVersion(manager, version);
    const validity = await this.fallbackStatus(manager, updated);
    const result = {
      version: stored,
      certificate: await this.applyCertificateEvent(manager, updated, { kind: 'issued', validity }, context),
    };
    // Policy rules see the new version's validity (ADR 0028).
    await this.policies.evaluateCertificates(manager, [certificate.id]);
    return result;
  }
}
