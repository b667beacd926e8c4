import { randomBytes } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { expandScanTargets, progressWriteDue, ScanEndpoint } from '@certlane/health-monitor-domain';
import { CertlaneLogger, LOGGER } from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';
import { MONITOR_CLOCK, MonitorClock } from '../health-checks/monitor-clock';
import { DiscoveryRecorder } from '../discovery/discovery-recorder';
import { ProbeOutcome, TlsProber } from '../health-checks/tls-prober';
import { returning } from '../health-checks/health-check.repository';

export interface NetworkScanRequest {
  cidrs: string[];
  hosts: string[];
  ports: number[];
  /** Probes in flight at once (1..256). */
  concurrency: number;
  /** New connections per second at most (1..10000). */
  ratePerSecond: number;
  startedBy: string;
  /** Started by the scan scheduler rather than a caller (ADR 0063). */
  scheduled?: boolean;
}

export interface StartedScan {
  id: string;
  /** The scan target scanned; null for a scan of an ad-hoc range. */
  targetId: string | null;
  count: number;
  endpoints: () => Iterable<ScanEndpoint>;
}

type Executor = Pick<EntityManager, 'query'>;

export interface NetworkScanResult {
  id: string;
  endpoints_total: number;
  endpoints_done: number;
  certificates_found: number;
  status: 'completed' | 'failed';
}

/**
 * A network TLS scan (issue 23 point 2; ADR 0057): expands the target, probes every endpoint with
 * TlsProber (so reserved addresses are refused unless allow-listed) under a concurrency bound and
 * a connection-rate bound, and stores every served certificate as a discovered certificate,
 * deduplicated by fingerprint, with where it was seen. Re-discovery never changes a status.
 */
@Injectable()
export class NetworkScanner implements BeforeApplicationShutdown {
  constructor(
    @InjectDataSource('health-monitor') private readonly dataSource: DataSource,
    private readonly prober: TlsProber,
    private readonly recorder: DiscoveryRecorder,
    @Inject(MONITOR_CLOCK) private readonly clock: MonitorClock,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  private readonly inFlight = new Set<Promise<unknown>>();
  private stopping = false;

  async run(request: NetworkScanRequest): Promise<NetworkScanResult> {
    const started = await this.dataSource.transaction((manager) => this.record(manager, request, null));
    return this.execute(started, request);
  }

  /**
   * Records a running scan in the caller's transaction (so its audit event commits with it) and
   * returns what `execute` needs; an unusable target is refused here, before anything is stored.
   */
  async record(
    manager: Executor,
    request: NetworkScanRequest,
    targetId: string | null,
  ): Promise<StartedScan> {
    const expansion = expandScanTargets(request.cidrs, request.hosts, request.ports);
    if (!expansion.ok) throw new Error(expansion.message);
    const id = `scan-${randomBytes(8).toString('hex')}`;
    await manager.query(
      `INSERT INTO network_scans (id, target_id, cidrs, hosts, ports, status, endpoints_total, started_by, scheduled, started_at, progress_at)
       VALUES ($1, $2, $3::jsonb, $4::jsonb, $5::jsonb, 'running', $6, $7, $8, $9, $9)`,
      [
        id,
        targetId,
        JSON.stringify(request.cidrs),
        JSON.stringify(request.hosts),
        JSON.stringify(request.ports),
        expansion.count,
        request.startedBy,
        request.scheduled ?? false,
        this.clock.now(),
      ],
    );
    return { id, targetId, count: expansion.count, endpoints: expansion.endpoints };
  }

  /**
   * Runs a recorded scan in the background; the service waits for it (stopping it early) on
   * shutdown. A scan that cannot even record its end is logged, not left to reject unhandled
   * (which would end the process); the scheduler's sweep marks it failed later.
   */
  launch(started: StartedScan, request: NetworkScanRequest): void {
    const running = this.execute(started, request)
      .catch((error: unknown) =>
        this.logger.error({ err: error, scan_id: started.id }, 'network scan could not record its end'),
      )
      .finally(() => this.inFlight.delete(running));
    this.inFlight.add(running);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.inFlight]);
  }

  async execute(started: StartedScan, request: NetworkScanRequest): Promise<NetworkScanResult> {
    const { id } = started;
    const concurrency = Math.min(256, Math.max(1, Math.trunc(request.concurrency)));
    const intervalMs = 1000 / Math.min(10_000, Math.max(1, request.ratePerSecond));
    const iterator = started.endpoints()[Symbol.iterator]();
    let done = 0;
    const found = new Set<string>();
    let nextSlot = performance.now();
    let lastProgressAt = this.clock.now();
    // Set when a worker fails: the others finish the probe in hand and take no more endpoints.
    let aborted = false;
    const take = (): ScanEndpoint | undefined => {
      if (this.stopping) throw new Error('the service stopped during the scan');
      if (aborted) return undefined;
      const next = iterator.next();
      return next.done ? undefined : next.value;
    };
    const work = async () => {
      for (let endpoint = take(); endpoint; endpoint = take()) {
        // The rate bound: each connection takes the next free slot of 1/rate seconds.
        const slot = nextSlot;
        nextSlot = Math.max(nextSlot, performance.now()) + intervalMs;
        const wait = slot - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const outcome = await this.prober.probe({ ...endpoint, sni: null });
        if (outcome.observation.kind === 'handshake') {
          await this.store(id, endpoint, outcome);
          found.add(outcome.observation.fingerprint);
        }
        done++;
        const now = this.clock.now();
        if (progressWriteDue(done, lastProgressAt, now)) {
          lastProgressAt = now;
          // Not running any more: the scheduler took this replica for lost and failed the scan.
          if (!(await this.progress(id, done, found.size, now)))
            throw new Error('the scan was marked failed while it ran');
        }
      }
    };
    const worker = () =>
      work().catch((error: unknown) => {
        aborted = true;
        throw error;
      });
    const result = (status: NetworkScanResult['status']): NetworkScanResult => ({
      id,
      endpoints_total: started.count,
      endpoints_done: done,
      certificates_found: found.size,
      status,
    });
    try {
      // Every worker has stopped before the scan's end is written: none writes after it.
      const workers = await Promise.allSettled(Array.from({ length: concurrency }, worker));
      const failure = workers.find(
        (outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected',
      );
      if (failure) throw failure.reason;
      const completed = await this.dataSource.transaction(async (manager) => {
        // A scan the scheduler marked failed meanwhile (lost) stays failed, and marks nothing.
        if (!(await this.finish(id, 'completed', done, found.size, null, manager))) return false;
        // A completed scan covered the whole target: what earlier scans of it saw and this one
        // did not is gone (ADR 0063). A failed scan marks nothing.
        if (started.targetId)
          await this.recorder.markGone(manager, { kind: 'scan-target', targetId: started.targetId }, id);
        return true;
      });
      return result(completed ? 'completed' : 'failed');
    } catch (error) {
      await this.finish(id, 'failed', done, found.size, (error as Error).message);
      return result('failed');
    }
  }

  private async store(scanId: string, endpoint: ScanEndpoint, outcome: ProbeOutcome): Promise<void> {
    const observation = outcome.observation;
    if (observation.kind !== 'handshake') return;
    const leaf = outcome.chain[0];
    await this.dataSource.transaction((manager) =>
      this.recorder.record(
        manager,
        {
          fingerprint: observation.fingerprint,
          subject: leaf?.subject ?? '',
          issuer: leaf?.issuer ?? '',
          notBefore: observation.notBefore,
          notAfter: observation.notAfter,
          chain: outcome.chain,
          leafPem: outcome.leaf_pem ?? null,
        },
        { location: `network:${endpoint.host}:${endpoint.port}`, source: 'network', scanId },
      ),
    );
  }

  /** Writes a running scan's progress; false when the scan is no longer running. */
  private async progress(id: string, done: number, found: number, at: Date): Promise<boolean> {
    const updated = returning(
      await this.dataSource.query(
        `UPDATE network_scans SET endpoints_done = $2, certificates_found = $3, progress_at = $4
         WHERE id = $1 AND status = 'running' RETURNING id`,
        [id, done, found, at],
      ),
    );
    return updated.length === 1;
  }

  private async finish(
    id: string,
    status: string,
    done: number,
    found: number,
    error: string | null,
    executor: Executor = this.dataSource,
  ): Promise<boolean> {
    // Only a running scan ends here: one the scheduler already failed keeps its status and error.
    const updated = returning(
      await executor.query(
        `UPDATE network_scans SET status = $2, endpoints_done = $3, certificates_found = $4, error = $5, finished_at = $6
         WHERE id = $1 AND status = 'running' RETURNING id`,
        [id, status, done, found, error, this.clock.now()],
      ),
    );
    return updated.length === 1;
  }
}
