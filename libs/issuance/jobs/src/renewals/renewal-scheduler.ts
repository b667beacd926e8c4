import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import {
  AuditAction,
  CertificateExpiryWarning,
  CertificateStatusChanged,
  EventOf,
  EventSubject,
  JobCreated,
  JobStatusChanged,
  RenewalSweepResult,
  SYSTEM_ACTOR,
} from '@certlane/contracts';
import {
  advanceAlertCursor,
  AlertCursor,
  daysRemaining,
  expiryWarningsDue,
  initialJobStatus,
  keyGenerationRefusal,
  nextCertificateStatus,
  nextJobStatus,
  renewalDue,
  retryDue,
} from '@certlane/issuance-domain';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  outboxToken,
  ServiceOutbox,
} from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { BulkRepository } from '../bulk/bulk.repository';
import { approvalDto, ApprovalRepository } from '@certlane/issuance-governance';
import { ServerIssuanceRunner } from '@certlane/issuance-inventory';
import { CaExpiryWarnings, IssuerCapabilities } from '@certlane/issuance-ca';
import { RenewableRule, RenewalRepository, ScheduledPolicy } from './renewal.repository';
import { UnitOfWork } from '@certlane/issuance-data-access';

/** Certificates per renewal-loop transaction. */
export const RENEWAL_BATCH = 1000;

/**
 * Certificates per expiry-warning transaction: their thresholds recorded with one INSERT and their
 * warnings written to the outbox with another (issue 22's benchmark: 20,000 warnings in 4
 * transactions instead of 20).
 */
export const ALERT_BATCH = 5000;

/** How many ids of due certificates the loop cannot renew one warning names per reason. */
const NOT_RENEWABLE_SAMPLE = 20;

/** The same count of due certificates the loop cannot renew is logged again after this long. */
const NOT_RENEWABLE_REPEAT_MS = 3_600_000;

/**
 * The renewal loop (ADR 0028), every SERVICE_RENEWAL_SWEEP_INTERVAL on every replica:
 * 1. certificates inside their renewal window (Active or Expiring) get a Renewal job and move to
 *    RenewalInProgress through the certificate machine;
 * 2. Failed certificates whose latest issuance or renewal job may be retried (attempts left,
 *    retry interval passed) get that job back (Failed -> Pending/AwaitingCSR, the job machine's
 *    retry) and move to RenewalInProgress;
 * 3. certificates that crossed an alert threshold of their policy get one
 *    `issuance.v1.certificate.expiry-warning` per expiry date and threshold.
 * Steps 1 and 2 pass by certificates no job can renew (`versionJobRefusal`: no issuer, an issuer
 * whose kind has no connector, or no agent in agent key generation): they stay due, get their expiry warnings, and a warning log
 * names them (`warnNotRenewable`; their count is `not_renewable` in the result). Certificates an
 * ACME, EST or SCEP client enrolled are its client's to renew (`renewedByTheLoop`): no job and no
 * such warning unless they have an agent; their expiry warnings still come.
 * Replicas share the work: candidate rows are locked FOR UPDATE SKIP LOCKED and leave the
 * candidate set in the transaction that handles them, so each certificate is renewed once.
 */
@Injectable()
export class RenewalScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<RenewalSweepResult>;
  private notRenewableWarned?: { total: number; at: number };

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly repository: RenewalRepository,
    private readonly bulk: BulkRepository,
    private readonly runner: ServerIssuanceRunner,
    private readonly approvals: ApprovalRepository,
    private readonly caExpiry: CaExpiryWarnings,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    private readonly issuers: IssuerCapabilities,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.config.renewalSweepIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    try {
      const result = await this.sweep();
      if (
        result.jobs_created + result.jobs_retried + result.expiry_warnings + result.ca_expiry_warnings >
        0
      ) {
        this.logger.info(result, 'renewal sweep done');
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'renewal sweep failed; the next one retries');
    }
  }

  /** One sweep; a call while one runs on this replica waits for that one. */
  sweep(): Promise<RenewalSweepResult> {
    this.running ??= this.sweepOnce().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async sweepOnce(): Promise<RenewalSweepResult> {
    const started = performance.now();
    const result: RenewalSweepResult = {
      jobs_created: 0,
      jobs_retried: 0,
      expiry_warnings: 0,
      ca_expiry_warnings: 0,
      not_renewable: 0,
      duration_ms: 0,
    };
    const serverJobs: string[] = [];
    const notRenewable = {
      no_issuer: [] as string[],
      no_connector: [] as string[],
      no_agent: [] as string[],
    };
    const policies = await this.repository.policies();
    for (const policy of policies) {
      for (;;) {
        const created = await this.renewBatch(policy);
        result.jobs_created += created.length;
        serverJobs.push(...created);
        if (created.length < RENEWAL_BATCH) break;
      }
      const left = await this.repository.notRenewableDue(
        this.repository.dataSource.manager,
        policy,
        this.renewable,
        NOT_RENEWABLE_SAMPLE,
      );
      result.not_renewable += left.total;
      notRenewable.no_issuer.push(...left.no_issuer);
      notRenewable.no_connector.push(...left.no_connector);
      notRenewable.no_agent.push(...left.no_agent);
    }
    this.warnNotRenewable(result.not_renewable, notRenewable);
    for (;;) {
      const retried = await this.retryBatch();
      result.jobs_retried += retried.length;
      serverJobs.push(...retried);
      if (retried.length < RENEWAL_BATCH) break;
    }
    result.expiry_warnings = await this.sendWarnings(policies);
    result.ca_expiry_warnings = await this.caExpiry.send();
    if (result.jobs_created + result.jobs_retried > 0) {
      await this.unitOfWork.run((manager) =>
        this.outbox.audit(manager, {
          action: AuditAction.RenewalsScheduled,
          event_category: 'cert_lifecycle',
          actor_id: SYSTEM_ACTOR,
          resource_type: 'certificate',
          resource_id: 'renewal-loop',
          outcome: 'success',
          details: { jobs_created: result.jobs_created, jobs_retried: result.jobs_retried },
        }),
      );
    }
    // Server key generation: issue now, like a renew request does (ServerIssuanceRunner).
    if (this.runner.enabled) for (const id of serverJobs) await this.runner.run(id);
    result.duration_ms = Math.round(performance.now() - started);
    return result;
  }

  private get jobStatus() {
    return initialJobStatus('Renewal', this.config.keygenMode);
  }

  /**
   * A warning naming due certificates the loop passes by, when their count changes and otherwise
   * once an hour (the sweep runs every minute by default).
   */
  private warnNotRenewable(
    total: number,
    ids: { no_issuer: string[]; no_connector: string[]; no_agent: string[] },
  ): void {
    if (total === 0) {
      this.notRenewableWarned = undefined;
      return;
    }
    const last = this.notRenewableWarned;
    const now = Date.now();
    if (last?.total === total && now - last.at < NOT_RENEWABLE_REPEAT_MS) return;
    this.notRenewableWarned = { total, at: now };
    this.logger.warn(
      {
        not_renewable: total,
        no_issuer: ids.no_issuer.slice(0, NOT_RENEWABLE_SAMPLE),
        no_connector: ids.no_connector.slice(0, NOT_RENEWABLE_SAMPLE),
        no_agent: ids.no_agent.slice(0, NOT_RENEWABLE_SAMPLE),
      },
      'due certificates not renewed: no issuer (set issuer_id), an issuer whose type cannot issue yet (renew at ' +
        'that CA and import the new version, or set a local_ca issuer_id), or no agent in agent key generation ' +
        '(set agent_id)',
    );
  }

  /**
   * What the loop's renewals need: an issuer whose kind issues, and the certificate's agent when
   * keyGenerationRefusal refuses an agentless one.
   */
  private get renewable(): RenewableRule {
    return {
      agentRequired: keyGenerationRefusal('Renewal', this.config.keygenMode, '') !== null,
      issuingKinds: this.issuers.issuingKinds(),
    };
  }

  /** One batch of due certificates -> RenewalInProgress with a Renewal job each; returns the job ids. */
  private async renewBatch(policy: ScheduledPolicy): Promise<string[]> {
    return this.unitOfWork.run(async (manager) => {
      const rows = await this.repository.dueBatch(manager, policy, this.renewable, RENEWAL_BATCH);
      const changes = rows.flatMap((row) => {
        if (!renewalDue(row.expires_at, row.db_now, policy.renewal_window_days)) return [];
        const transition = nextCertificateStatus(row.status, { kind: 'renew', force: false });
        return transition.ok ? [{ id: row.id, from: row.status, to: transition.to }] : [];
      });
      if (changes.length === 0) return [];
      const ids = changes.map((change) => change.id);
      const at = (await this.bulk.markRenewalInProgress(manager, ids)).toISOString();
      const status = this.jobStatus;
      const jobs = await this.bulk.createRenewalJobs(
        manager,
        ids.map((certificate_id) => ({ id: `job-${randomUUID()}`, certificate_id })),
        status,
        SYSTEM_ACTOR,
      );
      await this.events(
        manager,
        'issuance.v1.certificate.status-changed',
        changes.map((c): CertificateStatusChanged => ({ certificate_id: c.id, from: c.from, to: c.to, at })),
      );
      // Jobs of certificates whose profile requires approval wait for it (ADR 0025).
      const held = jobs.filter((job) => job.status === 'AwaitingApproval');
      const opened = await this.approvals.insertIssuanceMany(manager, held, SYSTEM_ACTOR);
      await this.events(manager, 'issuance.v1.approval.requested', opened.map(approvalDto));
      await this.events(
        manager,
        'issuance.v1.job.created',
        jobs.map((job): JobCreated => ({
          job_id: job.id,
          type: 'Renewal',
          status: job.status,
          certificate_id: job.certificate_id,
          agent_id: job.agent_id,
          target_id: '',
        })),
      );
      // Held jobs are counted too (the batch loop stops on a short batch); the runner skips them.
      return jobs.map((job) => job.id);
    });
  }

  /** One batch of failed certificates whose last job is retried; returns the job ids. */
  private async retryBatch(): Promise<string[]> {
    return this.unitOfWork.run(async (manager) => {
      const rows = await this.repository.retryBatch(manager, this.renewable, RENEWAL_BATCH);
      const due = rows.filter((row) =>
        retryDue(
          { attempts: row.attempts, retries: row.retries, failed_at: row.completed_at },
          row,
          row.db_now,
        ),
      );
      if (due.length === 0) return [];
      const stillFailed = await this.repository.lockFailedJobs(
        manager,
        due.map((row) => row.job_id),
      );
      const changes = due.flatMap((row) => {
        if (!stillFailed.has(row.job_id)) return [];
        // A profile that came to require approval since the job was made holds its retry (ADR 0025).
        const next: 'Pending' | 'AwaitingCSR' | 'AwaitingApproval' = row.needs_approval
          ? 'AwaitingApproval'
          : this.jobStatus;
        const job = nextJobStatus(row.job_status, { kind: 'retry', next });
        const certificate = nextCertificateStatus(row.status, { kind: 'renew', force: false });
        return job.ok && certificate.ok ? [{ row, jobTo: job.to, certificateTo: certificate.to }] : [];
      });
      if (changes.length === 0) return [];
      let retriedAt = new Date(0);
      for (const status of new Set(changes.map((c) => c.jobTo))) {
        const ids = changes.filter((c) => c.jobTo === status).map((c) => c.row.job_id);
        retriedAt = await this.repository.retryJobs(manager, ids, status);
      }
      const at = retriedAt.toISOString();
      const held = changes
        .filter((c) => c.jobTo === 'AwaitingApproval')
        .map((c) => ({
          id: c.row.job_id,
          certificate_id: c.row.certificate_id,
          profile_id: c.row.profile_id,
        }));
      const opened = await this.approvals.insertIssuanceMany(manager, held, SYSTEM_ACTOR);
      await this.events(manager, 'issuance.v1.approval.requested', opened.map(approvalDto));
      await this.repository.setStatus(
        manager,
        changes.map((c) => c.row.certificate_id),
        'RenewalInProgress',
      );
      await this.events(
        manager,
        'issuance.v1.job.status-changed',
        changes.map((c): JobStatusChanged => ({
          job_id: c.row.job_id,
          type: c.row.job_type,
          certificate_id: c.row.certificate_id,
          from: c.row.job_status,
          to: c.jobTo,
          error: '',
          at,
        })),
      );
      await this.events(
        manager,
        'issuance.v1.certificate.status-changed',
        changes.map((c): CertificateStatusChanged => ({
          certificate_id: c.row.certificate_id,
          from: c.row.status,
          to: c.certificateTo,
          at,
        })),
      );
      return changes.map((c) => c.row.job_id);
    });
  }

  /** Expiry warnings at the policies' alert thresholds; returns how many were sent. */
  private async sendWarnings(policies: ScheduledPolicy[]): Promise<number> {
    const maxThreshold = Math.max(-1, ...policies.flatMap((p) => p.alert_thresholds_days));
    if (maxThreshold < 0) return 0;
    let sent = 0;
    let after: AlertCursor | null = null;
    for (;;) {
      const { count, last, size } = await this.unitOfWork.run(async (manager) => {
        const rows = await this.repository.alertBatch(manager, maxThreshold, after, ALERT_BATCH);
        const records: { certificate_id: string; expires_at: string; threshold_days: number }[] = [];
        const announce = new Map<string, { row: (typeof rows)[number]; threshold: number }>();
        for (const row of rows) {
          const due = expiryWarningsDue(row.expires_at, row.db_now, row.thresholds, row.sent);
          for (const days of due.record) {
            records.push({ certificate_id: row.id, expires_at: row.expires_at_exact, threshold_days: days });
          }
          if (due.announce !== null)
            announce.set(`${row.id}\u0000${due.announce}`, { row, threshold: due.announce });
        }
        const inserted = await this.repository.recordAlerts(manager, records);
        const warnings = [...announce.entries()]
          .filter(([key]) => inserted.has(key))
          .map(([, { row, threshold }]): CertificateExpiryWarning => ({
            certificate_id: row.id,
            common_name: row.common_name,
            environment: row.environment,
            owner_id: row.owner_id ?? '',
            team_id: row.team_id ?? '',
            renewal_policy_id: row.renewal_policy_id,
            status: row.status,
            expires_at: row.expires_at.toISOString(),
            threshold_days: threshold,
            days_remaining: daysRemaining(row.expires_at, row.db_now),
          }));
        await this.events(manager, 'issuance.v1.certificate.expiry-warning', warnings);
        const tail = rows[rows.length - 1];
        return {
          count: warnings.length,
          last: tail ? { expires_at: tail.expires_at_exact, id: tail.id } : null,
          size: rows.length,
        };
      });
      sent += count;
      if (size < ALERT_BATCH || !last) return sent;
      after = advanceAlertCursor(after, last);
    }
  }

  /** Many events of one subject in one statement, in the batch's transaction (actor: system). */
  private async events<E extends EventSubject>(manager: EntityManager, subject: E, data: EventOf<E>[]) {
    if (data.length === 0) return;
    await this.outbox.addMany(manager, subject, data, SYSTEM_ACTOR);
  }
}
