import { randomBytes } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AuditAction } from '@certlane/contracts';
import { MONITOR_TICK_SECONDS } from '@certlane/health-monitor-domain';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  outboxToken,
  ServiceOutbox,
} from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';
import { DiscoveryRecorder, foundFromPem } from '../discovery/discovery-recorder';
import { MONITOR_TIMER } from '../health-checks/health-monitor.loop';
import { MONITOR_CLOCK, MonitorClock } from '../health-checks/monitor-clock';
import { AwsScanner } from './aws-scanner';
import { AzureScanner } from './azure-scanner';
import { CloudScanner, CloudSentinel } from './cloud-scanner';
import { GcpScanner } from './gcp-scanner';

/** The scanners of the configured providers (tests may pass their own). */
export const CLOUD_SCANNERS = Symbol('CLOUD_SCANNERS');

export function configuredCloudScanners(config: CertlaneConfig): CloudScanner[] {
  const { aws, azure, gcp } = config.cloudDiscovery;
  return [
    ...(aws ? [new AwsScanner(aws)] : []),
    ...(azure ? [new AzureScanner(azure)] : []),
    ...(gcp ? [new GcpScanner(gcp)] : []),
  ];
}

export interface CloudDiscoveryRun {
  sentinel: CloudSentinel;
  status: 'completed' | 'failed';
  objects_found: number;
  certificates_found: number;
  /** Certificates seen in this account before and by no place since (ADR 0063). */
  certificates_gone: number;
  error: string | null;
}

/**
 * Cloud secret-manager discovery (spec 2.4, issue 23; ADR 0063): on the monitor's 60 s tick,
 * claims the configured `cloud-<provider>-sm` sentinels whose run is due (FOR UPDATE SKIP LOCKED,
 * moving the due time on in the same transaction, so one replica runs each), runs their scanner,
 * stores every certificate found at `cloud:<sentinel>:<object name>` and audits the run with the
 * sentinel as actor.
 */
@Injectable()
export class CloudDiscoveryLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource('health-monitor') private readonly dataSource: DataSource,
    @Inject(CLOUD_SCANNERS) private readonly scanners: CloudScanner[],
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    private readonly recorder: DiscoveryRecorder,
    @Inject(outboxToken('health-monitor')) private readonly outbox: ServiceOutbox,
    @Inject(MONITOR_CLOCK) private readonly clock: MonitorClock,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    @Inject(MONITOR_TIMER) private readonly timerEnabled: boolean,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.timerEnabled || this.scanners.length === 0) return;
    this.timer = setInterval(() => void this.tick(), MONITOR_TICK_SECONDS * 1000);
    this.timer.unref();
    void this.tick();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    try {
      await this.runDue();
    } catch (error) {
      this.logger.warn({ err: error }, 'cloud discovery tick failed; the next one retries');
    }
  }

  /** Runs the sentinels due now (a new one is due at once); answers what each run did. */
  async runDue(): Promise<CloudDiscoveryRun[]> {
    if (this.scanners.length === 0) return [];
    const now = this.clock.now();
    const sentinels = this.scanners.map((scanner) => scanner.sentinel);
    const claimed: CloudSentinel[] = await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO cloud_discovery_runs (sentinel, next_run_at) SELECT unnest($1::text[]), $2
         ON CONFLICT (sentinel) DO NOTHING`,
        [sentinels, now],
      );
      const due: { sentinel: CloudSentinel }[] = await manager.query(
        `SELECT sentinel FROM cloud_discovery_runs WHERE sentinel = ANY($1) AND next_run_at <= $2
         ORDER BY sentinel FOR UPDATE SKIP LOCKED`,
        [sentinels, now],
      );
      for (const { sentinel } of due) {
        await manager.query(
          `UPDATE cloud_discovery_runs SET next_run_at = $2, last_started_at = $3, last_status = 'running'
           WHERE sentinel = $1`,
          [sentinel, new Date(now.getTime() + this.config.cloudDiscoveryIntervalMs), now],
        );
      }
      return due.map((row) => row.sentinel);
    });
    const runs: CloudDiscoveryRun[] = [];
    for (const sentinel of claimed) {
      runs.push(await this.run(this.scanners.find((scanner) => scanner.sentinel === sentinel)!));
    }
    return runs;
  }

  private async run(scanner: CloudScanner): Promise<CloudDiscoveryRun> {
    const sentinel = scanner.sentinel;
    let result: CloudDiscoveryRun;
    try {
      const findings = await scanner.scan(this.clock);
      const runId = `cloud-run-${randomBytes(8).toString('hex')}`;
      const fingerprints = new Set<string>();
      await this.dataSource.transaction(async (manager) => {
        for (const finding of findings) {
          for (const pem of finding.certificates) {
            let found;
            try {
              found = foundFromPem(pem);
            } catch {
              continue; // not a parsable certificate: nothing to record
            }
            fingerprints.add(found.fingerprint);
            await this.recorder.record(manager, found, {
              location: `cloud:${sentinel}:${finding.name}`,
              source: 'cloud',
              scanId: runId,
            });
          }
        }
        // The run read the whole account: what earlier runs saw there and this one did not is gone.
        const gone = await this.recorder.markGone(manager, { kind: 'cloud', owner: sentinel }, runId);
        result = {
          sentinel,
          status: 'completed',
          objects_found: findings.length,
          certificates_found: fingerprints.size,
          certificates_gone: gone,
          error: null,
        };
        await this.finish(manager, result);
      });
    } catch (error) {
      result = {
        sentinel,
        status: 'failed',
        objects_found: 0,
        certificates_found: 0,
        certificates_gone: 0,
        error: (error as Error).message.slice(0, 500),
      };
      await this.dataSource.transaction((manager) => this.finish(manager, result));
      this.logger.warn({ sentinel, error: result.error }, 'cloud discovery run failed');
    }
    this.outbox.committed();
    return result!;
  }

  /** Records the run's end and its audit event (actor: the sentinel agent) in one transaction. */
  private async finish(manager: EntityManager, run: CloudDiscoveryRun) {
    await manager.query(
      `UPDATE cloud_discovery_runs SET last_finished_at = $2, last_status = $3, last_error = $4,
         objects_found = $5, certificates_found = $6 WHERE sentinel = $1`,
      [run.sentinel, this.clock.now(), run.status, run.error, run.objects_found, run.certificates_found],
    );
    await this.outbox.audit(manager, {
      action: AuditAction.CloudDiscoveryRun,
      event_category: 'cert_lifecycle',
      actor_id: `agent.${run.sentinel}`,
      resource_type: 'agent',
      resource_id: run.sentinel,
      outcome: run.status === 'completed' ? 'success' : 'failure',
      details: { ...run },
    });
  }
}
