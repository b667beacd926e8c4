import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RequestContext } from '@certlane/contracts';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  isDatabaseUnreachable,
  LOGGER,
  retryWhileDatabaseUnreachable,
} from '@certlane/platform';
import { requiredEkus, runningLeaseMs } from '@certlane/issuance-domain';
import { EntityManager } from 'typeorm';
import { createCsr, keySpecFor, parseCsr, SoftwareKeyProvider } from '@certlane/pki';
import { JobRow } from '../jobs/job.repository';
import { assertCsrAllowed, ProfileEnforcer } from '@certlane/issuance-governance';
import { CertificateRow } from './certificate.repository';
import { StatusTransitions } from './status-transitions';
import { subjectAltNamesFor } from './subject-alt-names';
import { SignedVersion, VersionIssuance } from './version-issuance';
import { UnitOfWork } from '@certlane/issuance-data-access';
import { CertificateRepository } from './certificate.repository';
import { JobRepository } from '../jobs/job.repository';

/** How often (at most) a replica looks for server-mode work left Pending (a stopped replica, an outage). */
export const SERVER_ISSUANCE_SWEEP_MS = 30_000;

/** Pending jobs a sweep reads at a time; it reads again while it claims work (a bulk renewal's queue). */
const SWEEP_BATCH = 20;

/**
 * Server key generation (SERVICE_KEYGEN_MODE=server, ADR 0024): runs a Pending issuance or
 * renewal job. The request that created the job commits it first, then calls `run` and waits, so
 * the caller sees the certificate issued in the same response; a periodic sweep runs what a
 * stopped replica left behind. A job is claimed Pending -> Running under `FOR UPDATE SKIP LOCKED`
 * in its own transaction, so two replicas never issue for the same job.
 */
@Injectable()
export class ServerIssuanceRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly keys = new SoftwareKeyProvider();
  private timer?: NodeJS.Timeout;
  private sweeping = false;
  private sweepAgain = false;

  constructor(
    private readonly jobs: JobRepository,
    private readonly certificates: CertificateRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly transitions: StatusTransitions,
    private readonly versions: VersionIssuance,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    private readonly profiles: ProfileEnforcer,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
  ) {}

  get enabled(): boolean {
    return this.config.keygenMode === 'server';
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    // Never slower than the server lease: work left Pending (a claim lost to an outage) runs as
    // promptly as work the reaper re-queues.
    const every = Math.min(SERVER_ISSUANCE_SWEEP_MS, runningLeaseMs('Issuance', 'server', this.config.jobs));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
    void this.sweep();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * `run` for a request that waits on the bus: waited for at most 80 % of the bus's request
   * timeout, so the caller answers in time with the job as it stands while a slow CA (ACME, a
   * script) finishes it in the background (ADR 0084).
   */
  async runInline(jobId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.floor(this.config.nats.requestTimeoutMs * 0.8));
    });
    await Promise.race([this.run(jobId), bound]);
    clearTimeout(timer);
  }

  /**
   * Runs the Pending jobs until none is left to claim: batch after batch while a batch claimed
   * one (jobs other replicas hold are theirs). A call while a sweep runs makes that sweep read once
   * more at its end, so jobs committed meanwhile (a bulk renewal) are not left to the next interval.
   */
  async sweep(): Promise<void> {
    if (!this.enabled) return;
    if (this.sweeping) {
      this.sweepAgain = true;
      return;
    }
    this.sweeping = true;
    try {
      do {
        this.sweepAgain = false;
        let claimed = true;
        while (claimed) {
          const ids = await this.jobs.pendingIssuanceIds(SWEEP_BATCH);
          claimed = false;
          for (const id of ids) if (await this.run(id)) claimed = true;
          if (ids.length < SWEEP_BATCH) break;
        }
      } while (this.sweepAgain);
    } catch (error) {
      this.logger.warn({ err: error }, 'server issuance sweep failed; will retry');
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * Runs the job if it is Pending server-mode work nobody else holds. Never throws: the caller's
   * own change is committed already; what fails here is logged, and work left Pending is picked
   * up by the sweep. Answers whether this run claimed the job.
   */
  async run(jobId: string): Promise<boolean> {
    if (!this.enabled) return false;
    try {
      return await this.claimAndIssue(jobId);
    } catch (error) {
      this.logger.error(
        { job_id: jobId, err: error },
        'server issuance could not run; the sweep retries Pending jobs',
      );
      return false;
    }
  }

  private async claimAndIssue(jobId: string): Promise<boolean> {
    // A database outage does not strand the job: each step runs again once the database answers
    // (bounded by the server lease, after which the stale-job reaper re-queues it; ADR 0045).
    const claimed = await this.retrying(jobId, 'claim', () => this.claim(jobId));
    if (!claimed) return false;
    const { job, certificate } = claimed;
    const context: RequestContext = { actor_id: job.requested_by, request_id: job.id };
    try {
      const made = await this.retrying(job.id, 'sign', () => this.make(certificate, context));
      await this.retrying(job.id, 'store', () =>
        this.finish(job, async (manager, locked) => {
          const stored = await this.versions.store(manager, locked, job, made, context);
          return { to: 'complete', certificate: stored.certificate, versionId: stored.versionId };
        }),
      );
    } catch (error) {
      // Still unreachable after the lease: the job stays Running and the reaper re-queues it.
      if (isDatabaseUnreachable(error)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn(
        { job_id: job.id, certificate_id: job.certificate_id, err: error },
        'server issuance failed',
      );
      await this.retrying(job.id, 'fail', () =>
        this.finish(job, async (_manager, locked) => ({ to: 'fail', certificate: locked, error: message })),
      );
    }
    return true;
  }

  /** Pending -> Running under `FOR UPDATE SKIP LOCKED`, committed; null when not ours to run. */
  private async claim(jobId: string): Promise<{ job: JobRow; certificate: CertificateRow } | null> {
    return this.unitOfWork.run(async (manager) => {
      const job = await this.jobs.claimPending(manager, jobId);
      if (!job) return null;
      // The certificate is read, not locked: its lock is always taken before a job's.
      const certificate = (await this.certificates.find(job.certificate_id, manager)) as CertificateRow;
      const started = await this.transitions.transitionJob(
        manager,
        job,
        certificate,
        { kind: 'start' },
        undefined,
      );
      return { job: started.job, certificate };
    });
  }

  /** A fresh key, its CSR, and the certificate the issuer signs for it (nothing written yet). */
  private async make(certificate: CertificateRow, context: RequestContext): Promise<SignedVersion> {
    // The certificate's profile (ADR 0025): the CSR asks for what the profile requires, and a
    // CSR that still breaks a rule (a key algorithm it does not allow...) fails the job naming it.
    const profile = await this.profiles.profileOf(certificate.profile_id);
    const { signer } = await this.keys.generate(keySpecFor(certificate.key_algorithm));
    const csr = await createCsr({
      subject: [['CN', certificate.common_name]],
      signer,
      subjectAltNames: subjectAltNamesFor(certificate.common_name, certificate.sans),
      ...(profile ? { mustStaple: profile.must_staple, extendedKeyUsage: requiredEkus(profile) } : {}),
    });
    if (profile) assertCsrAllowed(parseCsr(csr.pem), profile);
    const signed = await this.versions.sign(certificate, { csrPem: csr.pem, profile }, context);
    return { signed, csrPem: csr.pem, keyAlgorithm: certificate.key_algorithm, pkcs8: signer.exportPkcs8() };
  }

  private retrying<T>(jobId: string, step: string, work: () => Promise<T>): Promise<T> {
    return retryWhileDatabaseUnreachable(work, {
      giveUpAfterMs: runningLeaseMs('Issuance', 'server', this.config.jobs),
      onRetry: (error, delayMs) =>
        this.logger.warn(
          { job_id: jobId, step, err: error, retry_in_ms: delayMs },
          'server issuance: the database is unreachable; retrying',
        ),
    });
  }

  /**
   * Completes or fails the claimed job if it is still this run's: Running, and not claimed again
   * since (`attempts` grows with every start, so a run whose lease the reaper released and another
   * replica re-claimed finds a different count). Otherwise the result is dropped, and nothing of
   * it (not even the serial) is recorded.
   */
  private async finish(
    claimed: JobRow,
    work: (manager: EntityManager, certificate: CertificateRow) => Promise<Outcome>,
  ): Promise<void> {
    await this.unitOfWork.run(async (manager) => {
      const { job, certificate } = await this.transitions.lockJob(manager, claimed.id);
      if (job.status !== 'Running' || job.attempts !== claimed.attempts) {
        this.logger.warn(
          { job_id: job.id, status: job.status, attempts: job.attempts, claimed_attempt: claimed.attempts },
          "server issuance result dropped: the job is no longer this run's",
        );
        return false;
      }
      const outcome = await work(manager, certificate);
      await this.transitions.transitionJob(
        manager,
        job,
        outcome.certificate,
        { kind: outcome.to },
        { actor_id: job.requested_by, request_id: job.id },
        { versionId: outcome.versionId, error: outcome.error },
      );
      return true;
    });
  }
}

interface Outcome {
  to: 'complete' | 'fail';
  certificate: CertificateRow;
  versionId?: string;
  error?: string;
}
