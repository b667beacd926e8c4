import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AuditAction, RequestContext, SYSTEM_ACTOR } from '@certlane/contracts';
import { CERTLANE_CONFIG, CertlaneConfig, CertlaneLogger, LOGGER, PeriodicTask } from '@certlane/platform';
import { InventoryWriter, lifecycleAudit } from '../certificates/inventory-writer';

/** Jobs failed per pass; the next pass takes the rest. */
const REAP_BATCH = 100;

/** How often the reaper looks: a quarter of the timeout, between 1 s and 1 min. */
export function reapIntervalMs(runningTimeoutMs: number): number {
  return Math.min(60_000, Math.max(1000, Math.floor(runningTimeoutMs / 4)));
}

/**
 * Fails jobs left Running past SERVICE_JOB_RUNNING_TIMEOUT since their last change: the worker
 * that held them (a server-mode issuance, an agentless deployment, an agent) was lost with the
 * process, and nothing else would ever move them. Failing goes through the job machine like any
 * failure (a failed issuance or renewal makes its certificate Failed), so the renewal loop retries
 * it while attempts remain. Each job is re-checked under its row lock, so a replica racing a
 * late report, or another replica's reaper, never fails a job that moved on.
 */
@Injectable()
export class StaleJobReaper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop: PeriodicTask;

  constructor(
    private readonly writer: InventoryWriter,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {
    this.loop = new PeriodicTask(() => this.reapLogged(), reapIntervalMs(config.jobs.runningTimeoutMs));
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  private async reapLogged(): Promise<void> {
    try {
      const failed = await this.reap();
      if (failed > 0) this.logger.warn({ failed }, 'jobs left Running by a lost worker were failed');
    } catch (error) {
      this.logger.warn({ err: error }, 'stale job reaper failed; will retry');
    }
  }

  /** One pass: fails every job Running since before the cutoff; returns how many. */
  async reap(): Promise<number> {
    const timeoutMs = this.config.jobs.runningTimeoutMs;
    const stale: { id: string }[] = await this.writer.jobs.dataSource.query(
      `SELECT id FROM jobs WHERE status = 'Running' AND updated_at < now() - make_interval(secs => $1)
       ORDER BY updated_at LIMIT $2`,
      [timeoutMs / 1000, REAP_BATCH],
    );
    let failed = 0;
    for (const { id } of stale) {
      if (await this.failIfStale(id, timeoutMs)) failed++;
    }
    return failed;
  }

  private async failIfStale(id: string, timeoutMs: number): Promise<boolean> {
    const context: RequestContext = { request_id: `stale-job-reaper:${id}`, actor_id: SYSTEM_ACTOR };
    const failed = await this.writer.jobs.transaction(async (manager) => {
      const { job, certificate } = await this.writer.lockJob(manager, id);
      if (job.status !== 'Running' || Date.now() - job.updated_at.getTime() < timeoutMs) return false;
      const error = `no progress for ${Math.round(timeoutMs / 1000)} s while Running: the worker holding the job was lost (process restart or crash); the job can be retried`;
      await this.writer.transitionJob(manager, job, certificate, { kind: 'fail' }, context, { error });
      await this.writer.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.JobTimedOut, 'job', id, context, {
          certificate_id: job.certificate_id,
          type: job.type,
          running_since: job.updated_at.toISOString(),
          timeout_seconds: Math.round(timeoutMs / 1000),
        }),
      );
      return true;
    });
    if (failed) this.writer.outbox.committed();
    return failed;
  }
}
