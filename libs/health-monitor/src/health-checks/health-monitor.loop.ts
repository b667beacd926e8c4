import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { HealthCheckStatusChanged } from '@certlane/contracts';
import {
  CLAIM_STEP_MS,
  claimBatchLimit,
  claimHorizon,
  claimSlots,
  delayUntilDue,
  judgeProbe,
  nextHealthState,
} from '@certlane/health-monitor-domain';
import { CertlaneLogger, LOGGER, outboxToken, ServiceOutbox } from '@certlane/platform';
import { HealthCheckRepository, HealthCheckResultWrite, HealthCheckRow } from './health-check.repository';
import { stateOf } from './health-check.service';
import { MONITOR_CLOCK, MonitorClock } from './monitor-clock';
import { ProbeOutcome, TlsProber } from './tls-prober';

/** Whether the claim timer runs (false in tests that call runDue themselves). */
export const MONITOR_TIMER = Symbol('MONITOR_TIMER');

/**
 * Checks claimed per transaction (a pass claims batches until one comes back short or the
 * replica holds MAX_WAITING claimed probes).
 */
const CLAIM_BATCH = 500;
/**
 * Probes in flight at once on one replica: a slot is held for the handshake only, which is
 * waiting on the network (a silent endpoint holds one for the 10 s timeout), so the bound is the
 * network scanner's rather than the CPU count.
 */
const PROBE_CONCURRENCY = 256;
/**
 * A replica stops claiming once this many claimed probes wait (for their due time or a free
 * slot): what it cannot run stays due in the table for another replica (or for this one once it
 * has caught up).
 */
export const MAX_WAITING = PROBE_CONCURRENCY * 2;
/** Probe results written per transaction at most (the recorder batches what arrives meanwhile). */
const RECORD_BATCH = 250;
/** A check's history is trimmed every this many probes (reads show the newest 500 meanwhile). */
export const HEALTH_CHECK_TRIM_EVERY = 50;

interface Probed {
  id: string;
  /** Where the probe went: the claimed check's endpoint. */
  endpoint: Pick<HealthCheckRow, 'host' | 'port' | 'sni' | 'starttls'>;
  outcome: ProbeOutcome;
  /** When the handshake ended: the result's checked_at and the time the verdict is judged at. */
  at: Date;
  done: () => void;
  failed: (error: unknown) => void;
}

const sameEndpoint = (
  a: Pick<HealthCheckRow, 'host' | 'port' | 'sni' | 'starttls'>,
  b: Pick<HealthCheckRow, 'host' | 'port' | 'sni' | 'starttls'>,
) => a.host === b.host && a.port === b.port && a.sni === b.sni && a.starttls === b.starttls;

/**
 * The monitor loop (spec 1, 3, 8; ADR 0057). Every second it claims the checks due in the next
 * two with FOR UPDATE SKIP LOCKED, moving their due time past that window in the same
 * transaction (so no other replica, and no later pass, takes them again), waits for each one's
 * due time, probes it and hands the outcome to a recorder that writes the outcomes which arrived
 * meanwhile in one transaction: state machine, history, status-change events.
 */
@Injectable()
export class HealthMonitorLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private claiming = false;
  /** Claimed checks whose due time has come, waiting for a probe slot. */
  private readonly ready: (() => Promise<void>)[] = [];
  /** Claimed checks whose due time has not come yet. */
  private scheduled = 0;
  private inFlight = 0;
  private readonly toRecord: Probed[] = [];
  private recording?: Promise<void>;

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
    this.timer = setInterval(() => void this.step(), CLAIM_STEP_MS);
    this.timer.unref();
    void this.step();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.recording;
  }

  /** One claim pass on the timer: claims what falls due in the next two seconds, schedules it. */
  private async step(): Promise<void> {
    // A pass still claiming (a slow database) or a backlog of due probes: leave the rest due.
    if (this.stopped || this.claiming || this.waiting() >= MAX_WAITING) return;
    this.claiming = true;
    try {
      const now = this.clock.now();
      const claimed = await this.claim(claimHorizon(now));
      for (const row of claimed) {
        // The probe slot is held for the handshake only: the write joins the recorder's next
        // batch, so a slow database delays results, not the probes due after them.
        const probe = async () => {
          const outcome = await this.probe(row);
          this.submit(row, outcome).catch((error: unknown) => this.warn(error));
        };
        this.scheduled++;
        const due = () => {
          this.scheduled--;
          this.enqueue(probe);
        };
        setTimeout(due, delayUntilDue(row.next_check_at, this.clock.now())).unref();
      }
    } catch (error) {
      this.warn(error);
    } finally {
      this.claiming = false;
    }
  }

  /** Claimed probes not started yet. */
  private waiting(): number {
    return this.scheduled + this.ready.length;
  }

  private warn(error: unknown): void {
    this.logger.warn({ err: error }, 'health monitor step failed; the next one retries');
  }

  /**
   * Claims what is due now and probes it at once, waiting for every result to be written (tests
   * with a fake clock). Answers the ids probed.
   */
  async runDue(): Promise<string[]> {
    const claimed = await this.claim(new Date(this.clock.now().getTime() + 1));
    await Promise.all(
      claimed.map(
        (row) =>
          new Promise<void>((resolve, reject) => {
            this.enqueue(() =>
              this.probe(row).then((outcome) => this.submit(row, outcome).then(resolve, reject)),
            );
          }),
      ),
    );
    return claimed.map((row) => row.id);
  }

  /**
   * What is due before `horizon`, batch after batch (one transaction, two statements each), until
   * this replica holds MAX_WAITING probes not started.
   */
  private async claim(horizon: Date): Promise<HealthCheckRow[]> {
    const claimed: HealthCheckRow[] = [];
    for (;;) {
      const limit = claimBatchLimit({
        waiting: this.waiting(),
        claimedThisPass: claimed.length,
        batch: CLAIM_BATCH,
        maxWaiting: MAX_WAITING,
      });
      if (limit === 0) return claimed;
      const batch = await this.repository.transaction(async (manager) => {
        const rows = await this.repository.claimDue(manager, horizon, limit);
        await this.repository.reschedule(manager, claimSlots(rows, horizon));
        return rows;
      });
      claimed.push(...batch);
      if (batch.length < limit || this.stopped) return claimed;
    }
  }

  private enqueue(probe: () => Promise<void>): void {
    if (this.stopped) return;
    this.ready.push(probe);
    this.pump();
  }

  private pump(): void {
    while (this.inFlight < PROBE_CONCURRENCY && this.ready.length > 0) {
      const probe = this.ready.shift()!;
      this.inFlight++;
      void probe().finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** Probes one check; a thrown error is a failed probe like any other. */
  private async probe(claimed: HealthCheckRow): Promise<{ outcome: ProbeOutcome; at: Date }> {
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
    return { outcome, at: this.clock.now() };
  }

  /** Queues a probe's outcome for the recorder; resolves once it is written. */
  private submit(claimed: HealthCheckRow, probed: { outcome: ProbeOutcome; at: Date }): Promise<void> {
    const { id, host, port, sni, starttls } = claimed;
    return new Promise<void>((done, failed) => {
      this.toRecord.push({ id, endpoint: { host, port, sni, starttls }, ...probed, done, failed });
      this.recording ??= this.drain();
    });
  }

  /** Writes queued outcomes, a batch per transaction, until none is left. */
  private async drain(): Promise<void> {
    try {
      while (this.toRecord.length > 0) {
        const batch = this.toRecord.splice(0, RECORD_BATCH);
        try {
          await this.record(batch);
          batch.forEach((probed) => probed.done());
        } catch (error) {
          batch.forEach((probed) => probed.failed(error));
        }
      }
    } finally {
      this.recording = undefined;
    }
  }

  /** Applies probe outcomes to their checks: status machine, history, status-change events. */
  private async record(batch: Probed[]): Promise<void> {
    const events = await this.repository.transaction(async (manager) => {
      const locked = await this.repository.lockForRecording(manager, [
        ...new Set(batch.map((probed) => probed.id)),
      ]);
      const current = new Map(locked.map((row) => [row.id, row]));
      const events: HealthCheckStatusChanged[] = [];
      const results: (HealthCheckResultWrite & { health_check_id: string })[] = [];
      const trim: string[] = [];
      for (const { id, endpoint, outcome, at } of batch) {
        const row = current.get(id);
        if (!row) continue; // deleted while probing
        // Disabled while probing, or pointed at another endpoint: this outcome is not the check's
        // any more (no result, no status change, no notification about the old endpoint).
        if (!row.enabled || !sameEndpoint(row, endpoint)) continue;
        const verdict = judgeProbe(outcome.observation, at);
        const transition = nextHealthState(stateOf(row), {
          kind: 'probe',
          verdict,
          expectedFingerprint: row.expected_fingerprint,
        });
        if (!transition.ok) continue;
        const { state, change } = transition;
        const observation = outcome.observation;
        const served = observation.kind === 'handshake' ? observation : null;
        const error =
          verdict.kind === 'failed'
            ? verdict.error
            : state.status === 'cert_mismatch'
              ? `served certificate ${verdict.fingerprint} is not the expected ${row.expected_fingerprint}`
              : null;
        const sinceTrim = row.results_since_trim + 1;
        if (sinceTrim >= HEALTH_CHECK_TRIM_EVERY) trim.push(id);
        current.set(id, {
          ...row,
          status: state.status,
          consecutive_failures: state.consecutiveFailures,
          acknowledged_at: state.acknowledged ? row.acknowledged_at : null,
          acknowledged_by: state.acknowledged ? row.acknowledged_by : null,
          status_changed_at: change ? at : row.status_changed_at,
          last_checked_at: at,
          last_error: error,
          last_fingerprint: served?.fingerprint ?? row.last_fingerprint,
          last_not_after: served?.notAfter ?? row.last_not_after,
          results_since_trim: sinceTrim >= HEALTH_CHECK_TRIM_EVERY ? 0 : sinceTrim,
        });
        results.push({
          health_check_id: id,
          checked_at: at,
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
          events.push({
            health_check_id: id,
            name: row.name,
            host: row.host,
            port: row.port,
            from: change.from,
            to: change.to,
            error,
            changed_at: at.toISOString(),
          });
        }
      }
      const probedIds = new Set(results.map((result) => result.health_check_id));
      await this.repository.updateProgressMany(
        manager,
        [...probedIds].map((id) => {
          const row = current.get(id)!;
          return { id, progress: row, results_since_trim: row.results_since_trim };
        }),
      );
      await this.repository.addResults(manager, results);
      await this.repository.trimHistory(manager, trim);
      await this.outbox.addMany(manager, 'health-monitor.v1.health-check.status-changed', events);
      return events.length;
    });
    if (events > 0) this.outbox.committed();
  }
}
