import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  CertlaneError,
  DeployCertificateRequest,
  ErrorCode,
  RenewCertificateRequest,
  RequestContext,
  RevocationReason,
  RevokeCertificateRequest,
  RevokeManagedCertificateRequest,
  SerialRevoked,
  StatusResponse,
} from '@certlane/contracts';
import { deploymentAgent, deployRefusal, DeployTargetFacts, releasesHold } from '@certlane/issuance-domain';
import { CertlaneLogger, LOGGER, MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { IssuerRevocation } from '@certlane/issuance-ca';
import { CertificateRow } from './certificate.repository';
import { certificateNotFound, StatusTransitions, lifecycleAudit } from './status-transitions';
import { ServerIssuanceRunner } from './server-issuance.runner';
import { UnitOfWork } from '@certlane/issuance-data-access';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { CertificateRepository } from './certificate.repository';
import { JobRepository } from '../jobs/job.repository';

/** What happened at the issuer for one serial of a revoked certificate. */
export interface IssuerRevocationOutcome {
  issuer_id: string;
  serial_number: string;
  version_id: string;
  /**
   * `recorded_only`: its CA was not told: the issuer's kind has no connector (ADR 0046), or its
   * connector cannot revoke or failed to (`error` says why, ADR 0082).
   */
  outcome: 'revoked' | 'already_revoked' | 'recorded_only' | 'failed';
  error?: string;
}

/** One certificate of a `revokeMany` call. */
export type RevokeOutcome =
  | {
      certificate_id: string;
      ok: true;
      from: string;
      issuer: IssuerRevocationOutcome[];
      /** The certificate's open issuance and renewal jobs the revocation cancelled. */
      cancelled_job_ids: string[];
    }
  | { certificate_id: string; ok: false; error: CertlaneError };

/** Renew, deploy and revoke a managed certificate (spec 4.2, section 3). */
@Injectable()
export class CertificateLifecycleService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly certificates: CertificateRepository,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    private readonly unitOfWork: UnitOfWork,
    private readonly transitions: StatusTransitions,
    private readonly runner: ServerIssuanceRunner,
    private readonly issuerRevocation: IssuerRevocation,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  /**
   * The certificate row lock serialises renewals of one certificate: of concurrent requests the
   * first moves it to RenewalInProgress, the others then see that status and get 409 (unless
   * forced). The new job supersedes the certificate's older open issuance and renewal jobs: they
   * are cancelled through the job machine, named in the audit record (ADR 0042). In server mode
   * the new version is issued before the answer.
   */
  async renew(request: RenewCertificateRequest, context?: RequestContext): Promise<StatusResponse> {
    const force = request.force === true;
    const job = await this.unitOfWork.run(async (manager) => {
      const current = await this.transitions.lockCertificate(manager, request.id);
      let row = await this.transitions.applyCertificateEvent(
        manager,
        current,
        { kind: 'renew', force },
        context,
      );
      const job = await this.transitions.createJob(manager, row, 'Renewal', context);
      const superseded: string[] = [];
      for (const older of await this.jobs.openVersionJobs(manager, [row.id], [job.id])) {
        row = (await this.transitions.cancelJob(manager, older, row, context, `superseded by ${job.id}`))
          .certificate;
        superseded.push(older.id);
      }
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.CertificateRenewalRequested, 'certificate', request.id, context, {
          job_id: job.id,
          force,
          from: current.status,
          job_status: job.status,
          superseded_job_ids: superseded,
        }),
      );
      return job;
    });
    if (this.runner.enabled) await this.runner.runInline(job.id);
    return { status: 'accepted', message: `renewal job ${job.id} created`, job_id: job.id };
  }

  /**
   * A Deployment job for the current version, to the named target (ADR 0042): an unknown target
   * is 404; a Revoked, Archived or Expired certificate, a retired target, or a target run by
   * another agent than the certificate's is 409 (deployRefusal). The job is for the target's agent
   * when it names one, else for the certificate's.
   */
  async deploy(request: DeployCertificateRequest, context?: RequestContext): Promise<StatusResponse> {
    if (!(await this.certificates.find(request.id))) throw certificateNotFound(request.id);
    const target = request.target_id ? await this.deployTarget(request.target_id, context) : null;
    const job = await this.unitOfWork.run(async (manager) => {
      const certificate = await this.transitions.lockCertificate(manager, request.id);
      const refused = deployRefusal(certificate, target);
      if (refused) {
        throw new CertlaneError(refused.refusal, refused.message, {
          status: certificate.status,
          ...(target ? { target_id: target.id, target_agent_id: target.agent_id } : {}),
        });
      }
      if (!certificate.current_version_id) {
        throw new CertlaneError(
          ErrorCode.CertificateNotIssued,
          `certificate ${request.id} has no issued version to deploy`,
        );
      }
      const job = await this.transitions.createJob(manager, certificate, 'Deployment', context, {
        target_id: request.target_id,
        version_id: certificate.current_version_id,
        agent_id: deploymentAgent(certificate, target),
      });
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.CertificateDeployRequested, 'certificate', request.id, context, {
          job_id: job.id,
          target_id: request.target_id ?? '',
          version_id: certificate.current_version_id,
        }),
      );
      return job;
    });
    return { status: 'accepted', message: `deployment job ${job.id} created`, job_id: job.id };
  }

  /** The target as deployment-dispatch knows it (404 target_not_found when it does not). */
  private async deployTarget(id: string, context?: RequestContext): Promise<DeployTargetFacts> {
    const target = await this.bus.request('deployment-dispatch.v1.get-target', { id }, { context });
    return { id: target.id, agent_id: target.agent_id, retired: target.retired_at !== null };
  }

  /**
   * POST /certificates/{id}/revoke: one certificate, one audit record listing the issuer outcomes.
   * Reason removeFromCRL revokes nothing: it releases a certificateHold (`releaseHold`).
   */
  async revoke(request: RevokeManagedCertificateRequest, context?: RequestContext): Promise<StatusResponse> {
    const reason = request.reason ?? 'unspecified';
    if (releasesHold(reason)) return this.releaseHold(request.id, context);
    const [outcome] = await this.unitOfWork.run(async (manager) => {
      const outcomes = await this.revokeMany(manager, [request.id], reason, context);
      const [first] = outcomes;
      if (!first.ok) throw first.error;
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.CertificateRevoked, 'certificate', request.id, context, {
          reason,
          from: first.from,
          issuer: first.issuer,
          cancelled_job_ids: first.cancelled_job_ids,
        }),
      );
      return outcomes;
    });
    const issuers = outcome.ok ? outcome.issuer : [];
    const failed = issuers.filter((i) => i.outcome === 'failed').length;
    const recordedOnly = issuers.filter((i) => i.outcome === 'recorded_only');
    const untold = [...new Set(recordedOnly.filter((i) => i.error === undefined).map((i) => i.issuer_id))];
    const refusals = [...new Set(recordedOnly.flatMap((i) => (i.error === undefined ? [] : [i.error])))];
    const notes = [
      ...(failed > 0 ? [`the issuer was not notified for ${failed} serial(s); see the audit log`] : []),
      ...(untold.length > 0
        ? [
            `recorded here only: Certlane cannot revoke at the CA of issuer ${untold.join(', ')}, so that CA was not told; revoke the certificate there too`,
          ]
        : []),
      ...refusals.map(
        (refusal) => `recorded here only, the CA was not told (${refusal}); revoke the certificate there too`,
      ),
    ];
    return { status: 'revoked', ...(notes.length > 0 ? { message: notes.join('; ') } : {}) };
  }

  /**
   * The bus `revoke-certificate` (ACME's revokeCert): one serial revoked at its issuer and, in the
   * same transaction, the managed certificate it is the current version of moved to Revoked (reason,
   * date, one audit record), so the inventory never calls Active what CRL and OCSP call revoked. The
   * serial of an older version leaves its certificate as it is: only that certificate was revoked.
   * The certificate row is locked before the serial's, as a managed certificate's revoke does.
   */
  revokeSerial(request: RevokeCertificateRequest, context?: RequestContext): Promise<SerialRevoked> {
    return this.issuerRevocation.revoke(request, context, async (manager, revokeSerial) => {
      const holder = await this.certificates.currentVersionHolder(manager, {
        serialNumber: request.serial_hex,
        issuerId: request.issuer_id,
      });
      const current = holder && (await this.transitions.lockCertificate(manager, holder.id));
      const revoked = await revokeSerial();
      // Renewed between the read and the lock: that serial is no longer the certificate's. A
      // revoked one is left as it is, unless a final reason just replaced its hold.
      if (!current || current.current_version_id !== holder.version_id) return;
      if (
        current.status === 'Revoked' &&
        (revoked.already_revoked || current.revocation_reason !== 'certificateHold')
      )
        return;
      const row = await this.transitions.applyCertificateEvent(
        manager,
        current,
        { kind: 'revoke' },
        context,
        {
          reason: revoked.reason,
        },
      );
      const { cancelled } = await this.transitions.withdrawVersionJobs(
        manager,
        row,
        context,
        'certificate revoked',
      );
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.CertificateRevoked, 'certificate', current.id, context, {
          reason: revoked.reason,
          from: current.status,
          issuer_id: revoked.issuer_id,
          serial_number: revoked.serial_hex,
          cancelled_job_ids: cancelled,
        }),
      );
    });
  }

  /**
   * removeFromCRL on a held certificate (RFC 5280 5.3.1, ADR 0037): it is no longer revoked
   * anywhere. The machine's `release-hold` puts it back where its dates and open renewals say
   * (400 certificate_not_on_hold unless its revocation is a certificateHold), the revocation
   * fields are cleared, and the hold of every unexpired serial is released at its issuer, which
   * tells the revocation service (next CRL without the serial, OCSP good). All in one
   * transaction, unlike revoke's best-effort issuer step: a release the issuer did not record
   * would leave the CRL and OCSP saying revoked while the inventory says not.
   */
  private async releaseHold(id: string, context?: RequestContext): Promise<StatusResponse> {
    const certificate = await this.unitOfWork.run(async (manager) => {
      const current = await this.transitions.lockCertificate(manager, id);
      const row = await this.transitions.applyCertificateEvent(
        manager,
        current,
        {
          kind: 'release-hold',
          revocationReason: current.revocation_reason,
          openRenewals: await this.jobs.openRenewals(manager, id, ''),
          fallback: await this.transitions.fallbackStatus(manager, current),
        },
        context,
        { reason: null },
      );
      const versions = await this.certificates.versionsToRevoke(manager, id);
      const released = await this.issuerRevocation.releaseHoldsWithin(
        manager,
        versions.map((version) => ({
          issuer_id: version.issuer_id,
          serial_hex: version.serial_number,
          certificate_id: id,
        })),
        context,
      );
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.CertificateHoldReleased, 'certificate', id, context, {
          reason: 'removeFromCRL',
          from: current.status,
          to: row.status,
          released: released.map((event) => ({
            issuer_id: event.issuer_id,
            serial_number: event.serial_hex,
          })),
        }),
      );
      return row;
    });
    return {
      status: 'released',
      message: `certificateHold released; the certificate is ${certificate.status} and no longer revoked`,
    };
  }

  /**
   * Revokes certificates inside the caller's transaction, for this route:
   * each certificate is locked, moved to Revoked (revoked_at, reason; status-changed event), and
   * every unexpired version's serial, and the current one's even when it has expired, is revoked at its issuer (IssuerRevocation: recorded,
   * issuance.v1.certificate.revoked published, so the revocation service's CRL and OCSP show it).
   * The issuer step is best effort: it runs under a savepoint, and a failure is logged and
   * reported in the outcome without undoing the inventory change. No audit record is
   * written here (the caller writes its one record, in its unit of work). Unknown ids come back as `ok: false` with certificate_not_found.
   */
  async revokeMany(
    manager: EntityManager,
    certificateIds: readonly string[],
    reason: RevocationReason,
    context?: RequestContext,
  ): Promise<RevokeOutcome[]> {
    const outcomes: RevokeOutcome[] = [];
    for (const id of certificateIds) {
      let current: CertificateRow;
      try {
        current = await this.transitions.lockCertificate(manager, id);
      } catch (error) {
        if (error instanceof CertlaneError) {
          outcomes.push({ certificate_id: id, ok: false, error });
          continue;
        }
        throw error;
      }
      const revoked = await this.transitions.applyCertificateEvent(
        manager,
        current,
        { kind: 'revoke' },
        context,
        { reason },
      );
      const { cancelled } = await this.transitions.withdrawVersionJobs(
        manager,
        revoked,
        context,
        'certificate revoked',
      );
      const versions = await this.certificates.versionsToRevoke(manager, id);
      const issuer = await this.revokeAtIssuers(manager, id, versions, reason, context);
      outcomes.push({
        certificate_id: id,
        ok: true,
        from: current.status,
        issuer,
        cancelled_job_ids: cancelled,
      });
    }
    return outcomes;
  }

  /**
   * The certificate's serials at their issuers, best effort: under a savepoint, so a failure is
   * logged and reported per serial without undoing the inventory change.
   */
  private async revokeAtIssuers(
    manager: EntityManager,
    certificateId: string,
    versions: readonly { id: string; issuer_id: string; serial_number: string; cert_pem?: string | null }[],
    reason: RevocationReason,
    context?: RequestContext,
  ): Promise<IssuerRevocationOutcome[]> {
    const base = (version: (typeof versions)[number]) => ({
      issuer_id: version.issuer_id,
      serial_number: version.serial_number,
      version_id: version.id,
    });
    const failed = (version: (typeof versions)[number], error: unknown): IssuerRevocationOutcome => {
      this.logger.warn(
        { certificate_id: certificateId, ...base(version), err: error },
        'revocation at the issuer failed; the certificate stays revoked in the inventory',
      );
      const message = error instanceof Error ? error.message : String(error);
      return { ...base(version), outcome: 'failed', error: message };
    };
    if (versions.length === 0) return [];
    await manager.query('SAVEPOINT issuer_revoke');
    try {
      const results = await this.issuerRevocation.revokeSerials(
        manager,
        versions.map((version) => ({
          issuer_id: version.issuer_id,
          serial_hex: version.serial_number,
          ...(version.cert_pem ? { certificate_pem: version.cert_pem } : {}),
        })),
        reason,
        context,
      );
      await manager.query('RELEASE SAVEPOINT issuer_revoke');
      return versions.map((version, index) => {
        const result = results[index];
        if (!result.ok) return failed(version, result.error);
        if (!result.caNotified)
          return {
            ...base(version),
            outcome: 'recorded_only',
            ...(result.caFailure === undefined ? {} : { error: result.caFailure }),
          };
        return { ...base(version), outcome: result.created ? 'revoked' : 'already_revoked' };
      });
    } catch (error) {
      await manager.query('ROLLBACK TO SAVEPOINT issuer_revoke');
      return versions.map((version) => failed(version, error));
    }
  }
}
