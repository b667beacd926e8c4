import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AuditAction, RequestContext, SYSTEM_ACTOR } from '@certlane/contracts';
import { lostWorkerEvent, runningLeaseMs } from '@certlane/issuance-domain';
import { CERTLANE_CONFIG, CertlaneConfig, CertlaneLogger, LOGGER, PeriodicTask } from '@certlane/platform';
import { StatusTransitions, lifecycleAudit, ServerIssuanceRunner } from '@certlane/issuance-inventory';
import { UnitOfWork } from '@certlane/issuance-data-access';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { JobRepository } from '@certlane/issuance-inventory';

/** Jobs failed per pass; the next pass takes the rest. */
const REAP_BATCH = 100;

/** How often the reaper looks: a quarter of the timeout, between 1 s and 1 min. */
export function reapIntervalMs(runningTimeoutMs: number): number {
  return Math.min(60_000, Math.max(1000, Math.floor(runningTimeoutMs / 4)));
}

/**
 * Handles jobs left Running past their lease since their last change: the worker that held them
 * (a server-mode issuance, an agentless deployment, an agent) was lost with the process, and
 * nothing else would ever move them. The lease is SERVICE_JOB_RUNNING_TIMEOUT, or for issuance
 * and renewal the service runs itself (server key generation) the short SERVICE_JOB_SERVER_LEASE;
 * such work is released back to Pending while attempts remain and run again at once (ADR 0045).
 * Anything else fails through the job machine like any failure (a failed issuance or renewal
 * makes its certificate Failed), so the renewal loop retries it while attempts remain. Each job
 * is re-checked under its row lock, so a replica racing a late report, or another replica's
 * reaper, never touches a job that moved on.
 */
@Injectable()
export class StaleJobReaper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop: PeriodicTask;

  constructor(
    private readonly jobs: JobRepository,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    private readonly unitOfWork: UnitOfWork,
    private readonly transitions: StatusTransitions,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    private readonly runner: ServerIssuanceRunner,
  ) {
    this.loop = new PeriodicTask(() => this.reapLogged(), reapIntervalMs(this.shortestLeaseMs()));
  }

  private shortestLeaseMs(): number {
    return runningLeaseMs('Issuance', this.config.keygenMode, this.config.jobs);
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  private async reapLogged(): Promise<void> {
    try {
      const handled = await this.reap();
      if (handled > 0)
        this.logger.warn({ handled }, 'jobs left Running by a lost worker were failed or re-queued');
    } catch (error) {
      this.logger.warn({ err: error }, 'stale job reaper failed; will retry');
    }
  }

  /** One pass: fails or re-queues every job Running past its lease; returns how many. */
  async reap(): Promise<number> {
    // Candidates past the shortest lease; each one's own lease is applied under its row lock.
    const stale: { id: string }[] = await this.jobs.dataSource.query(
      `SELECT id FROM jobs WHERE status = 'Running' AND updated_at < now() - make_interval(secs => $1)
       ORDER BY updated_at LIMIT $2`,
      [this.shortestLeaseMs() / 1000, REAP_BATCH],
    );
    let handled = 0;
    for (const { id } of stale) {
      const released = await this.handleIfStale(id);
      if (released === undefined) continue;
      handled++;
      // Queued again: run it now rather than at the next sweep (it never throws).
      if (released) await this.runner.run(id);
    }
    return handled;
  }

  /** Undefined when the job is not stale (any more); else whether it was released (else failed). */
  private async handleIfStale(id: string): Promise<boolean | undefined> {
    const context: RequestContext = { request_id: `stale-job-reaper:${id}`, actor_id: SYSTEM_ACTOR };
    const mode = this.config.keygenMode;
    return this.unitOfWork.run(async (manager) => {
      const { job, certificate } = await this.transitions.lockJob(manager, id);
      const leaseMs = runningLeaseMs(job.type, mode, this.config.jobs);
      if (job.status !== 'Running' || Date.now() - job.updated_at.getTime() < leaseMs) return undefined;
      const event = lostWorkerEvent(job, mode);
      const seconds = Math.round(leaseMs / 1000);
      const error =
        event.kind === 'release'
          ? `no progress for ${seconds} s while Running: the worker holding the job was lost (process restart, crash or database outage); queued again (attempt ${job.attempts} of ${job.max_attempts})`
          : `no progress for ${seconds} s while Running: the worker holding the job was lost (process restart or crash); the job can be retried`;
      const moved = await this.transitions.transitionJob(manager, job, certificate, event, context, {
        error,
      });
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.JobTimedOut, 'job', id, context, {
          certificate_id: job.certificate_id,
          type: job.type,
          running_since: job.updated_at.toISOString(),
          timeout_seconds: seconds,
          status: moved.job.status,
          attempts: job.attempts,
        }),
      );
      return event.kind === 'release';
    });
  }
}
