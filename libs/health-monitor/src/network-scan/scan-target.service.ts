import { randomBytes } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AuditAction,
  auditOrigin,
  AuditRecord,
  CertlaneError,
  CreateScanTargetRequest,
  ErrorCode,
  ListNetworkScansRequest,
  NetworkScanDto,
  Page,
  RequestContext,
  resolvePage,
  SCAN_CONCURRENCY_DEFAULT,
  SCAN_RATE_DEFAULT,
  ScanTargetDeleted,
  ScanTargetDto,
  SYSTEM_ACTOR,
  UpdateScanTargetRequest,
} from '@certlane/contracts';
import { expandScanTargets, scheduledScanAfterEdit } from '@certlane/health-monitor-domain';
import { MESSAGE_BUS, MessageBus, outboxToken, ServiceOutbox } from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';
import { MONITOR_CLOCK, MonitorClock } from '../health-checks/monitor-clock';
import { NetworkScanner } from './network-scanner';

type Executor = Pick<EntityManager, 'query'>;

interface TargetRow {
  id: string;
  name: string;
  cidrs: string[];
  hosts: string[];
  ports: number[];
  concurrency: number;
  rate_per_second: number;
  schedule_seconds: number | null;
  next_scan_at: Date | null;
  last_scan_id: string | null;
  created_at: Date;
  updated_at: Date;
}

interface ScanRow extends Omit<NetworkScanDto, 'started_at' | 'finished_at'> {
  started_at: Date;
  finished_at: Date | null;
}

const TARGET_SELECT = `SELECT t.*, (SELECT s.id FROM network_scans s WHERE s.target_id = t.id
    ORDER BY s.started_at DESC, s.id LIMIT 1) AS last_scan_id FROM scan_targets t`;
const SCAN_COLUMNS = `id, target_id, status, cidrs, hosts, ports, endpoints_total, endpoints_done,
  certificates_found, started_by, scheduled, started_at, finished_at, error`;

/** The endpoint count, or the refusal (400) of a target the scanner could not sweep. */
function endpointsOf(target: Pick<TargetRow, 'cidrs' | 'hosts' | 'ports'>): number {
  const expansion = expandScanTargets(target.cidrs, target.hosts, target.ports);
  if (!expansion.ok) throw new CertlaneError(ErrorCode.ScanTargetInvalid, expansion.message);
  if (expansion.count === 0) {
    throw new CertlaneError(
      ErrorCode.ScanTargetInvalid,
      'a scan target needs at least one CIDR range or host',
    );
  }
  return expansion.count;
}

function targetDto(row: TargetRow): ScanTargetDto {
  const expansion = expandScanTargets(row.cidrs, row.hosts, row.ports);
  return {
    id: row.id,
    name: row.name,
    cidrs: row.cidrs,
    hosts: row.hosts,
    ports: row.ports,
    concurrency: row.concurrency,
    rate_per_second: row.rate_per_second,
    schedule_seconds: row.schedule_seconds,
    next_scan_at: row.next_scan_at?.toISOString() ?? null,
    endpoints: expansion.ok ? expansion.count : 0,
    last_scan_id: row.last_scan_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const scanDto = (row: ScanRow): NetworkScanDto => ({
  ...row,
  started_at: row.started_at.toISOString(),
  finished_at: row.finished_at?.toISOString() ?? null,
});

const targetNotFound = (id: string) =>
  new CertlaneError(ErrorCode.ScanTargetNotFound, `scan target ${JSON.stringify(id)} not found`);

/** Scan targets are discovery configuration (spec 6.1 category `config`). */
const audit = (
  action: string,
  resourceType: string,
  id: string,
  context: Parameters<typeof auditOrigin>[0],
  details: Record<string, unknown>,
): AuditRecord => ({
  action,
  event_category: 'config',
  ...auditOrigin(context),
  resource_type: resourceType,
  resource_id: id,
  outcome: 'success',
  details,
});

/**
 * Network scan targets and their scans (spec 2.14, 4.12; ADR 0057): CRUD, trigger (a scan now,
 * recorded with who started it and audited in the same transaction; NetworkScanner runs it in
 * the background under the target's bounds), and the scans with their progress.
 */
@Injectable()
export class ScanTargetService implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource('health-monitor') private readonly dataSource: DataSource,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(outboxToken('health-monitor')) private readonly outbox: ServiceOutbox,
    @Inject(MONITOR_CLOCK) private readonly clock: MonitorClock,
    private readonly scanner: NetworkScanner,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('health-monitor.v1.list-scan-targets', (request) => this.list(resolvePage(request))),
      this.bus.handle('health-monitor.v1.get-scan-target', (request) => this.get(request.id)),
      this.bus.handle('health-monitor.v1.create-scan-target', (request, context) =>
        this.create(request, context),
      ),
      this.bus.handle('health-monitor.v1.update-scan-target', (request, context) =>
        this.update(request, context),
      ),
      this.bus.handle('health-monitor.v1.delete-scan-target', (request, context) =>
        this.delete(request.id, context),
      ),
      this.bus.handle('health-monitor.v1.trigger-scan-target', (request, context) =>
        this.trigger(request.id, context),
      ),
      this.bus.handle('health-monitor.v1.list-network-scans', (request) => this.scans(request)),
      this.bus.handle('health-monitor.v1.get-network-scan', (request) => this.scan(request.id)),
    ]);
  }

  async list(page: { page: number; per_page: number }): Promise<Page<ScanTargetDto>> {
    const [{ total }] = await this.dataSource.query('SELECT count(*)::int AS total FROM scan_targets');
    const rows: TargetRow[] = await this.dataSource.query(
      `${TARGET_SELECT} ORDER BY t.created_at, t.id LIMIT $1 OFFSET $2`,
      [page.per_page, (page.page - 1) * page.per_page],
    );
    return { data: rows.map(targetDto), total, page: page.page, per_page: page.per_page };
  }

  async get(id: string, executor: Executor = this.dataSource, lock = false): Promise<ScanTargetDto> {
    const rows: TargetRow[] = await executor.query(
      `${TARGET_SELECT} WHERE t.id = $1 ${lock ? 'FOR UPDATE OF t' : ''}`,
      [id],
    );
    if (!rows[0]) throw targetNotFound(id);
    return targetDto(rows[0]);
  }

  async create(request: CreateScanTargetRequest, context?: RequestContext): Promise<ScanTargetDto> {
    const cidrs = request.cidrs ?? [];
    const hosts = request.hosts ?? [];
    if (!request.ports) throw new CertlaneError(ErrorCode.ScanTargetInvalid, 'ports is required');
    endpointsOf({ cidrs, hosts, ports: request.ports });
    const id = `st-${randomBytes(8).toString('hex')}`;
    const now = this.clock.now();
    const dto = await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO scan_targets (id, name, cidrs, hosts, ports, concurrency, rate_per_second,
           schedule_seconds, next_scan_at, created_at, updated_at)
         VALUES ($1, $2, $3::jsonb, $4::jsonb, $5::jsonb, $6, $7, $8, $9, $10, $10)`,
        [
          id,
          request.name ?? [...cidrs, ...hosts].slice(0, 3).join(', '),
          JSON.stringify(cidrs),
          JSON.stringify(hosts),
          JSON.stringify(request.ports),
          request.concurrency ?? SCAN_CONCURRENCY_DEFAULT,
          request.rate_per_second ?? SCAN_RATE_DEFAULT,
          request.schedule_seconds ?? null,
          scheduledScanAfterEdit(request.schedule_seconds ?? null, now),
          now,
        ],
      );
      const created = await this.get(id, manager);
      await this.outbox.audit(
        manager,
        audit(AuditAction.ScanTargetCreated, 'scan_target', id, context, { after: created }),
      );
      return created;
    });
    this.outbox.committed();
    return dto;
  }

  async update(request: UpdateScanTargetRequest, context?: RequestContext): Promise<ScanTargetDto> {
    const dto = await this.dataSource.transaction(async (manager) => {
      const before = await this.get(request.id, manager, true);
      const next = {
        name: request.name ?? before.name,
        cidrs: request.cidrs ?? before.cidrs,
        hosts: request.hosts ?? before.hosts,
        ports: request.ports ?? before.ports,
        concurrency: request.concurrency ?? before.concurrency,
        rate_per_second: request.rate_per_second ?? before.rate_per_second,
        // null removes the schedule; left out keeps it.
        schedule_seconds:
          request.schedule_seconds === undefined ? before.schedule_seconds : request.schedule_seconds,
      };
      endpointsOf(next);
      const now = this.clock.now();
      // A changed schedule starts counting from now; an unchanged one keeps its due time.
      const nextScanAt =
        next.schedule_seconds === before.schedule_seconds
          ? before.next_scan_at
          : scheduledScanAfterEdit(next.schedule_seconds, now);
      await manager.query(
        `UPDATE scan_targets SET name = $2, cidrs = $3::jsonb, hosts = $4::jsonb, ports = $5::jsonb,
           concurrency = $6, rate_per_second = $7, schedule_seconds = $8, next_scan_at = $9,
           updated_at = $10 WHERE id = $1`,
        [
          request.id,
          next.name,
          JSON.stringify(next.cidrs),
          JSON.stringify(next.hosts),
          JSON.stringify(next.ports),
          next.concurrency,
          next.rate_per_second,
          next.schedule_seconds,
          nextScanAt,
          now,
        ],
      );
      const after = await this.get(request.id, manager);
      await this.outbox.audit(
        manager,
        audit(AuditAction.ScanTargetUpdated, 'scan_target', request.id, context, { before, after }),
      );
      return after;
    });
    this.outbox.committed();
    return dto;
  }

  /** The target goes; its scans stay as records (their target_id keeps the old id). */
  async delete(id: string, context?: RequestContext): Promise<ScanTargetDeleted> {
    await this.dataSource.transaction(async (manager) => {
      const before = await this.get(id, manager, true);
      await manager.query('DELETE FROM scan_targets WHERE id = $1', [id]);
      await this.outbox.audit(
        manager,
        audit(AuditAction.ScanTargetDeleted, 'scan_target', id, context, { before }),
      );
    });
    this.outbox.committed();
    return { id };
  }

  /** Starts a scan now; answers the running scan at once (poll GET .../scans/{id} for progress). */
  async trigger(id: string, context?: RequestContext): Promise<NetworkScanDto> {
    const { dto, launch } = await this.dataSource.transaction(async (manager) => {
      const target = await this.get(id, manager, true);
      return this.start(manager, target, context, false);
    });
    this.outbox.committed();
    launch();
    return dto;
  }

  /**
   * Records a running scan of `target` and its `network_scan.started` audit event in the caller's
   * transaction; `launch` (called after the commit) runs it in the background under the target's
   * bounds. Shared by the trigger route and the scan scheduler (which starts as `system`).
   */
  async start(
    manager: EntityManager,
    target: ScanTargetDto,
    context: RequestContext | undefined,
    scheduled: boolean,
  ): Promise<{ dto: NetworkScanDto; launch: () => void }> {
    // The scheduler's scans are the system's: no caller asked for them.
    const origin = scheduled ? { actor_id: SYSTEM_ACTOR } : context;
    const request = {
      cidrs: target.cidrs,
      hosts: target.hosts,
      ports: target.ports,
      concurrency: target.concurrency,
      ratePerSecond: target.rate_per_second,
      startedBy: auditOrigin(origin).actor_id,
      scheduled,
    };
    const started = await this.scanner.record(manager, request, target.id);
    const dto = await this.scan(started.id, manager);
    await this.outbox.audit(
      manager,
      audit(AuditAction.NetworkScanStarted, 'network_scan', started.id, origin, {
        target_id: target.id,
        endpoints_total: started.count,
        concurrency: target.concurrency,
        rate_per_second: target.rate_per_second,
        scheduled,
      }),
    );
    return { dto, launch: () => this.scanner.launch(started, request) };
  }

  async scans(request: ListNetworkScansRequest): Promise<Page<NetworkScanDto>> {
    const page = resolvePage(request);
    const conditions: string[] = [];
    const values: unknown[] = [];
    if (request.target_id) {
      values.push(request.target_id);
      conditions.push(`target_id = $${values.length}`);
    }
    if (request.status) {
      values.push(request.status);
      conditions.push(`status = $${values.length}`);
    }
    const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
    const [{ total }] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM network_scans ${where}`,
      values,
    );
    const rows: ScanRow[] = await this.dataSource.query(
      `SELECT ${SCAN_COLUMNS} FROM network_scans ${where} ORDER BY started_at DESC, id
       LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, page.per_page, (page.page - 1) * page.per_page],
    );
    return { data: rows.map(scanDto), total, page: page.page, per_page: page.per_page };
  }

  async scan(id: string, executor: Executor = this.dataSource): Promise<NetworkScanDto> {
    const rows: ScanRow[] = await executor.query(`SELECT ${SCAN_COLUMNS} FROM network_scans WHERE id = $1`, [
      id,
    ]);
    if (!rows[0]) {
      throw new CertlaneError(ErrorCode.NetworkScanNotFound, `network scan ${JSON.stringify(id)} not found`);
    }
    return scanDto(rows[0]);
  }
}
