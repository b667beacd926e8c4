import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  lostScanCutoff,
  MONITOR_TICK_SECONDS,
  scanLostAfterMs,
  scheduledScanDecision,
} from '@certlane/health-monitor-domain';
import { CertlaneLogger, LOGGER, outboxToken, ServiceOutbox } from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';
import { MONITOR_TIMER } from '../health-checks/health-monitor.loop';
import { MONITOR_CLOCK, MonitorClock } from '../health-checks/monitor-clock';
import { PROBE_TIMEOUT_MS } from '../health-checks/tls-prober';
import { ScanTargetService } from './scan-target.service';

/** Targets one tick of one replica takes at most (each scan runs in the background). */
const CLAIM_BATCH = 16;

export interface ScheduledScanRun {
  target_id: string;
  scan_id: string | null;
  skipped: 'previous_scan_running' | null;
}

/**
 * The scan scheduler (issue 23; ADR 0063): on the monitor's 60 s tick, claims the scan targets
 * whose next_scan_at has passed with FOR UPDATE SKIP LOCKED, moves their due time on and records
 * each scan (as `system`, audited) in the same transaction, so N replicas never start one slot
 * twice; the scans then run in the background. A slot whose previous scan still runs is skipped.
 * First, a running scan whose progress has stood still too long is marked failed: the replica
 * running it was lost (killed mid-scan), and its target would otherwise be skipped forever.
 */
@Injectable()
export class ScanScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource('health-monitor') private readonly dataSource: DataSource,
    private readonly targets: ScanTargetService,
    @Inject(outboxToken('health-monitor')) private readonly outbox: ServiceOutbox,
    @Inject(MONITOR_CLOCK) private readonly clock: MonitorClock,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    @Inject(MONITOR_TIMER) private readonly timerEnabled: boolean,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.timerEnabled) return;
    this.timer = setInterval(() => void this.tick(), MONITOR_TICK_SECONDS * 1000);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    try {
      await this.runDue();
    } catch (error) {
      this.logger.warn({ err: error }, 'scan scheduler tick failed; the next one retries');
    }
  }

  /** Starts the scans due now; answers what it did with each claimed target. */
  async runDue(): Promise<ScheduledScanRun[]> {
    const now = this.clock.now();
    const { runs, launches } = await this.dataSource.transaction(async (manager) => {
      await this.failLostScans(manager, now);
      const due: { id: string; next_scan_at: Date; schedule_seconds: number; running: boolean }[] =
        await manager.query(
          `SELECT t.id, t.next_scan_at, t.schedule_seconds,
             EXISTS (SELECT 1 FROM network_scans s WHERE s.target_id = t.id AND s.status = 'running') AS running
           FROM scan_targets t
           WHERE t.next_scan_at IS NOT NULL AND t.next_scan_at <= $1
           ORDER BY t.next_scan_at, t.id LIMIT $2 FOR UPDATE OF t SKIP LOCKED`,
          [now, CLAIM_BATCH],
        );
      const runs: ScheduledScanRun[] = [];
      const launches: (() => void)[] = [];
      for (const row of due) {
        const decision = scheduledScanDecision({
          dueAt: row.next_scan_at,
          scheduleSeconds: row.schedule_seconds,
          now,
          previousScanRunning: row.running,
        });
        await manager.query('UPDATE scan_targets SET next_scan_at = $2 WHERE id = $1', [
          row.id,
          decision.nextScanAt,
        ]);
        if (decision.action === 'skip') {
          runs.push({ target_id: row.id, scan_id: null, skipped: decision.reason });
          continue;
        }
        const target = await this.targets.get(row.id, manager);
        const { dto, launch } = await this.targets.start(manager, target, undefined, true);
        runs.push({ target_id: row.id, scan_id: dto.id, skipped: null });
        launches.push(launch);
      }
      return { runs, launches };
    });
    if (launches.length) this.outbox.committed();
    for (const launch of launches) launch();
    return runs;
  }

  private async failLostScans(manager: EntityManager, now: Date): Promise<void> {
    const seconds = Math.round(scanLostAfterMs(PROBE_TIMEOUT_MS) / 1000);
    const [lost]: [{ id: string }[], number] = await manager.query(
      `UPDATE network_scans SET status = 'failed', finished_at = $1, error = $3
       WHERE status = 'running' AND COALESCE(progress_at, started_at) < $2 RETURNING id`,
      [
        now,
        lostScanCutoff(now, PROBE_TIMEOUT_MS),
        `the replica running this scan was lost: no progress for more than ${seconds} s`,
      ],
    );
    if (lost.length)
      this.logger.warn({ scan_ids: lost.map((scan) => scan.id) }, 'marked lost network scans failed');
  }
}
