import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { HealthCheckStatusChanged } from '@certlane/contracts';
import {
  claimHorizon,
  delayUntilDue,
  judgeProbe,
  MONITOR_TICK_SECONDS,
  nextDueAt,
  nextHealthState,
} from '@certlane/health-monitor-domain';
import { CertlaneLogger, LOGGER, outboxToken, ServiceOutbox } from '@certlane/platform';
import { HealthCheckRepository, HealthCheckRow } from './health-check.repository';
import { stateOf } from './health-check.service';
import { MONITOR_CLOCK, MonitorClock } from './monitor-clock';
import { ProbeOutcome, TlsProber } from './tls-prober';

/** Whether the 60 s timer runs (false in tests that call runDue themselves). */
export const MONITOR_TIMER = Symbol('MONITOR_TIMER');

/** Checks claimed per transaction (a tick claims batches until one comes back short). */
const CLAIM_BATCH = 1000;
/** Probes in flight at once on one replica. */
const PROBE_CONCURRENCY = 64;

/**
 * The monitor loop (spec 1, 3, 8; ADR 0057): every 60 s claims the checks due before the next
 * tick with FOR UPDATE SKIP LOCKED (moving their due time on in the same transaction, so no other
 * replica takes them), waits for each one's due time, probes it and records the result.
 */
@Injectable()
export class HealthMonitorLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly repository: HealthCheckRepository,
    private readonly prober: TlsProber,
    @Inject(outboxToken('health-monitor')) private readonly outbox: ServiceOutbox,
    @Inject(MONITOR_CLOCK) private readonly clock: MonitorClock,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    @Inject(MONITOR_TIMER) private readonly timerEnabled: boolean,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.timerEnabled) return;
    this.timer = setInterval(() => void this.tick(), MONITOR_TICK_SECONDS * 1000);
    this.timer.unref();
    void this.tick();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    try {
      await this.runDue({ waitForDueTime: true });
    } catch (error) {
      this.logger.warn({ err: error }, 'health monitor tick failed; the next one retries');
    }
  }

  /**
   * Claims what is due before the next tick and probes it; with waitForDueTime false (tests with a
   * fake clock), probes at once. Answers the ids probed.
   */
  async runDue(options: { waitForDueTime: boolean }): Promise<string[]> {
    const now = this.clock.now();
    const horizon = options.waitForDueTime ? claimHorizon(now) : new Date(now.getTime() + 1);
    // Batch after batch until a short one: everything due before the horizon is claimed by this
    // tick (10,000 checks at a 60 s interval are ~10 batches), each batch in its own transaction.
    const claimed: HealthCheckRow[] = [];
    for (;;) {
      const batch = await this.repository.transaction(async (manager) => {
        const rows = await this.repository.claimDue(manager, horizon, CLAIM_BATCH);
        for (const row of rows) {
          await this.repository.reschedule(
            manager,
            row.id,
            nextDueAt(row.next_check_at, row.interval_seconds, now),
          );
        }
        return rows;
      });
      claimed.push(...batch);
      if (batch.length < CLAIM_BATCH || this.stopped) break;
    }
    const queue = [...claimed];
    const worker = async () => {
      for (let row = queue.shift(); row && !this.stopped; row = queue.shift()) {
        if (options.waitForDueTime) await sleep(delayUntilDue(row.next_check_at, this.clock.now()));
        await this.probeAndRecord(row);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PROBE_CONCURRENCY, queue.length) }, worker));
    return claimed.map((row) => row.id);
  }

  private async probeAndRecord(claimed: HealthCheckRow): Promise<void> {
    let outcome: ProbeOutcome;
    try {
      outcome = await this.prober.probe(claimed);
    } catch (error) {
      outcome = {
        observation: { kind: 'error', error: (error as Error).message },
        handshake_ms: null,
        tls_version: null,
        chain: [],
      };
    }
    await this.record(claimed.id, outcome);
  }

  /** Applies one probe outcome to a check: status machine, history, status-change event. */
  async record(checkId: string, outcome: ProbeOutcome): Promise<void> {
    const changed = await this.repository.transaction(async (manager) => {
      const current = await this.repository.find(checkId, manager, true);
      if (!current) return false; // deleted while probing
      const now = this.clock.now();
      const verdict = judgeProbe(outcome.observation, now);
      const transition = nextHealthState(stateOf(current), {
        kind: 'probe',
        verdict,
        expectedFingerprint: current.expected_fingerprint,
      });
      if (!transition.ok) return false;
      const { state, change } = transition;
      const observation = outcome.observation;
      const served = observation.kind === 'handshake' ? observation : null;
      const error =
        verdict.kind === 'failed'
          ? verdict.error
          : state.status === 'cert_mismatch'
            ? `served certificate ${verdict.fingerprint} is not the expected ${current.expected_fingerprint}`
            : null;
      await this.repository.updateProgress(manager, checkId, {
        status: state.status,
        consecutive_failures: state.consecutiveFailures,
        acknowledged_at: state.acknowledged ? current.acknowledged_at : null,
        acknowledged_by: state.acknowledged ? current.acknowledged_by : null,
        status_changed_at: change ? now : current.status_changed_at,
        last_checked_at: now,
        next_check_at: current.next_check_at,
        last_error: error,
        last_fingerprint: served?.fingerprint ?? current.last_fingerprint,
        last_not_after: served?.notAfter ?? current.last_not_after,
      });
      await this.repository.addResult(manager, checkId, {
        checked_at: now,
        success: verdict.kind === 'served',
        status: state.status,
        handshake_ms: outcome.handshake_ms,
        tls_version: outcome.tls_version,
        fingerprint: served?.fingerprint ?? null,
        not_after: served?.notAfter ?? null,
        chain: outcome.chain,
        error,
      });
      if (change) {
        const event: HealthCheckStatusChanged = {
          health_check_id: checkId,
          name: current.name,
          host: current.host,
          port: current.port,
          from: change.from,
          to: change.to,
          error,
          changed_at: now.toISOString(),
        };
        await this.outbox.add(manager, 'health-monitor.v1.health-check.status-changed', event);
      }
      return change !== null;
    });
    if (changed) this.outbox.committed();
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
