import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  HEALTH_CHECK_HISTORY_MAX,
  HealthCheckDto,
  HealthCheckResultDto,
  HealthCheckStartTls,
  HealthCheckStatus,
  HealthCheckSummary,
  Page,
  ResolvedPage,
  ServedCertificate,
} from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';

type Executor = Pick<EntityManager, 'query'>;

export interface HealthCheckRow {
  id: string;
  name: string;
  host: string;
  port: number;
  sni: string | null;
  starttls: HealthCheckStartTls | null;
  expected_fingerprint: string | null;
  interval_seconds: number;
  enabled: boolean;
  status: HealthCheckStatus;
  consecutive_failures: number;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  status_changed_at: Date;
  last_checked_at: Date | null;
  next_check_at: Date;
  last_error: string | null;
  last_fingerprint: string | null;
  last_not_after: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The fields an operator sets. */
export type HealthCheckSettings = Pick<
  HealthCheckRow,
  'name' | 'host' | 'port' | 'sni' | 'starttls' | 'expected_fingerprint' | 'interval_seconds' | 'enabled'
>;

/** The fields a probe (or an acknowledgement) moves. */
export type HealthCheckProgress = Pick<
  HealthCheckRow,
  | 'status'
  | 'consecutive_failures'
  | 'acknowledged_at'
  | 'acknowledged_by'
  | 'status_changed_at'
  | 'last_checked_at'
  | 'next_check_at'
  | 'last_error'
  | 'last_fingerprint'
  | 'last_not_after'
>;

export interface HealthCheckResultWrite {
  checked_at: Date;
  success: boolean;
  status: HealthCheckStatus;
  handshake_ms: number | null;
  tls_version: string | null;
  fingerprint: string | null;
  not_after: Date | null;
  chain: ServedCertificate[];
  error: string | null;
}

/** A locked check as the recorder reads it. */
export interface RecordingRow extends HealthCheckRow {
  results_since_trim: number;
}

interface ResultRow extends Omit<HealthCheckResultWrite, 'checked_at' | 'not_after'> {
  id: string;
  health_check_id: string;
  checked_at: Date;
  not_after: Date | null;
}

const COLUMNS =
  'id, name, host, port, sni, starttls, expected_fingerprint, interval_seconds, enabled, status, consecutive_failures, ' +
  'acknowledged_at, acknowledged_by, status_changed_at, last_checked_at, next_check_at, last_error, ' +
  'last_fingerprint, last_not_after, created_at, updated_at';

const iso = (value: Date | null) => value?.toISOString() ?? null;

export function healthCheckDto(row: HealthCheckRow): HealthCheckDto {
  return {
    id: row.id,
    name: row.name,
    host: row.host,
    port: row.port,
    sni: row.sni,
    starttls: row.starttls,
    expected_fingerprint: row.expected_fingerprint,
    interval_seconds: row.interval_seconds,
    enabled: row.enabled,
    status: row.status,
    consecutive_failures: row.consecutive_failures,
    acknowledged: row.acknowledged_at !== null,
    acknowledged_at: iso(row.acknowledged_at),
    acknowledged_by: row.acknowledged_by,
    status_changed_at: row.status_changed_at.toISOString(),
    last_checked_at: iso(row.last_checked_at),
    next_check_at: row.next_check_at.toISOString(),
    last_error: row.last_error,
    last_fingerprint: row.last_fingerprint,
    last_not_after: iso(row.last_not_after),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function resultDto(row: ResultRow): HealthCheckResultDto {
  return {
    id: String(row.id),
    health_check_id: row.health_check_id,
    checked_at: row.checked_at.toISOString(),
    success: row.success,
    status: row.status,
    handshake_ms: row.handshake_ms,
    tls_version: row.tls_version,
    fingerprint: row.fingerprint,
    not_after: iso(row.not_after),
    chain: row.chain,
    error: row.error,
  };
}

/** Rows of `UPDATE/DELETE ... RETURNING` through TypeORM's raw query (`[rows, count]`). */
export function returning<T>(result: unknown): T[] {
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}

/** Storage of health checks in schema health_monitor (raw SQL). */
@Injectable()
export class HealthCheckRepository {
  constructor(@InjectDataSource('health-monitor') private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async list(page: ResolvedPage, status?: HealthCheckStatus): Promise<Page<HealthCheckDto>> {
    const where = status ? 'WHERE status = $3' : '';
    const values: unknown[] = [page.per_page, (page.page - 1) * page.per_page, ...(status ? [status] : [])];
    const rows: (HealthCheckRow & { total: string })[] = await this.dataSource.query(
      `SELECT ${COLUMNS}, count(*) OVER () AS total FROM health_checks ${where}
       ORDER BY created_at, id LIMIT $1 OFFSET $2`,
      values,
    );
    const total = rows.length
      ? Number(rows[0].total)
      : Number(
          (
            await this.dataSource.query(
              `SELECT count(*) AS total FROM health_checks ${status ? 'WHERE status = $1' : ''}`,
              status ? [status] : [],
            )
          )[0].total,
        );
    return { data: rows.map(healthCheckDto), total, page: page.page, per_page: page.per_page };
  }

  async find(id: string, executor: Executor = this.dataSource, lock = false): Promise<HealthCheckRow | null> {
    const rows: HealthCheckRow[] = await executor.query(
      `SELECT ${COLUMNS} FROM health_checks WHERE id = $1 ${lock ? 'FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  async insert(
    manager: Executor,
    id: string,
    settings: HealthCheckSettings,
    nextCheckAt: Date,
  ): Promise<HealthCheckRow> {
    const rows: HealthCheckRow[] = await manager.query(
      `INSERT INTO health_checks (id, name, host, port, sni, expected_fingerprint, interval_seconds, enabled, next_check_at, starttls)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
      [
        id,
        settings.name,
        settings.host,
        settings.port,
        settings.sni,
        settings.expected_fingerprint,
        settings.interval_seconds,
        settings.enabled,
        nextCheckAt,
        settings.starttls,
      ],
    );
    return rows[0];
  }

  async updateSettings(
    manager: Executor,
    id: string,
    settings: HealthCheckSettings,
    nextCheckAt: Date,
  ): Promise<HealthCheckRow> {
    const rows = returning<HealthCheckRow>(
      await manager.query(
        `UPDATE health_checks SET name = $2, host = $3, port = $4, sni = $5, expected_fingerprint = $6,
           interval_seconds = $7, enabled = $8, next_check_at = $9, starttls = $10, updated_at = now()
         WHERE id = $1 RETURNING ${COLUMNS}`,
        [
          id,
          settings.name,
          settings.host,
          settings.port,
          settings.sni,
          settings.expected_fingerprint,
          settings.interval_seconds,
          settings.enabled,
          nextCheckAt,
          settings.starttls,
        ],
      ),
    );
    return rows[0];
  }

  async updateProgress(
    manager: Executor,
    id: string,
    progress: HealthCheckProgress,
  ): Promise<HealthCheckRow> {
    const rows = returning<HealthCheckRow>(
      await manager.query(
        `UPDATE health_checks SET status = $2, consecutive_failures = $3, acknowledged_at = $4,
           acknowledged_by = $5, status_changed_at = $6, last_checked_at = $7, next_check_at = $8,
           last_error = $9, last_fingerprint = $10, last_not_after = $11
         WHERE id = $1 RETURNING ${COLUMNS}`,
        [
          id,
          progress.status,
          progress.consecutive_failures,
          progress.acknowledged_at,
          progress.acknowledged_by,
          progress.status_changed_at,
          progress.last_checked_at,
          progress.next_check_at,
          progress.last_error,
          progress.last_fingerprint,
          progress.last_not_after,
        ],
      ),
    );
    return rows[0];
  }

  async delete(manager: Executor, id: string): Promise<boolean> {
    const rows = returning<{ id: string }>(
      await manager.query('DELETE FROM health_checks WHERE id = $1 RETURNING id', [id]),
    );
    return rows.length > 0;
  }

  /**
   * Claims enabled checks due before `horizon`, locking them for the caller's transaction; a
   * replica running the same query skips the locked rows, so no check is probed twice.
   */
  async claimDue(manager: Executor, horizon: Date, limit: number): Promise<HealthCheckRow[]> {
    return manager.query(
      `SELECT ${COLUMNS} FROM health_checks WHERE enabled AND next_check_at < $1
       ORDER BY next_check_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [horizon, limit],
    );
  }

  /** Moves claimed checks' next_check_at (one statement) so other replicas do not claim them again. */
  async reschedule(manager: Executor, slots: { id: string; nextDueAt: Date }[]): Promise<void> {
    if (slots.length === 0) return;
    await manager.query(
      `UPDATE health_checks h SET next_check_at = t.due
       FROM unnest($1::text[], $2::timestamptz[]) AS t(id, due) WHERE h.id = t.id`,
      [slots.map((slot) => slot.id), slots.map((slot) => slot.nextDueAt)],
    );
  }

  /** Locks the probed checks (in id order, so concurrent recorders cannot deadlock). */
  async lockForRecording(manager: Executor, ids: string[]): Promise<RecordingRow[]> {
    return manager.query(
      `SELECT ${COLUMNS}, results_since_trim FROM health_checks WHERE id = ANY($1) ORDER BY id FOR UPDATE`,
      [ids],
    );
  }

  /** Writes what a batch of probes moved, one statement. */
  async updateProgressMany(
    manager: Executor,
    updates: {
      id: string;
      progress: Omit<HealthCheckProgress, 'next_check_at'>;
      results_since_trim: number;
    }[],
  ): Promise<void> {
    if (updates.length === 0) return;
    const column = <K extends keyof Omit<HealthCheckProgress, 'next_check_at'>>(key: K) =>
      updates.map((update) => update.progress[key]);
    await manager.query(
      `UPDATE health_checks h SET status = t.status, consecutive_failures = t.failures,
         acknowledged_at = t.acknowledged_at, acknowledged_by = t.acknowledged_by,
         status_changed_at = t.status_changed_at, last_checked_at = t.last_checked_at,
         last_error = t.last_error, last_fingerprint = t.last_fingerprint,
         last_not_after = t.last_not_after, results_since_trim = t.since_trim
       FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[], $5::text[], $6::timestamptz[],
                   $7::timestamptz[], $8::text[], $9::text[], $10::timestamptz[], $11::int[])
         AS t(id, status, failures, acknowledged_at, acknowledged_by, status_changed_at, last_checked_at,
              last_error, last_fingerprint, last_not_after, since_trim)
       WHERE h.id = t.id`,
      [
        updates.map((update) => update.id),
        column('status'),
        column('consecutive_failures'),
        column('acknowledged_at'),
        column('acknowledged_by'),
        column('status_changed_at'),
        column('last_checked_at'),
        column('last_error'),
        column('last_fingerprint'),
        column('last_not_after'),
        updates.map((update) => update.results_since_trim),
      ],
    );
  }

  /** Appends a batch of results, one statement. */
  async addResults(
    manager: Executor,
    results: (HealthCheckResultWrite & { health_check_id: string })[],
  ): Promise<void> {
    if (results.length === 0) return;
    const column = <K extends keyof HealthCheckResultWrite>(key: K) => results.map((result) => result[key]);
    await manager.query(
      `INSERT INTO health_check_results
         (health_check_id, checked_at, success, status, handshake_ms, tls_version, fingerprint, not_after, chain, error)
       SELECT id, checked_at, success, status, handshake_ms, tls_version, fingerprint, not_after, chain::jsonb, error
       FROM unnest($1::text[], $2::timestamptz[], $3::boolean[], $4::text[], $5::int[], $6::text[], $7::text[],
                   $8::timestamptz[], $9::text[], $10::text[])
         AS t(id, checked_at, success, status, handshake_ms, tls_version, fingerprint, not_after, chain, error)`,
      [
        results.map((result) => result.health_check_id),
        column('checked_at'),
        column('success'),
        column('status'),
        column('handshake_ms'),
        column('tls_version'),
        column('fingerprint'),
        column('not_after'),
        results.map((result) => JSON.stringify(result.chain)),
        column('error'),
      ],
    );
  }

  /** Drops the checks' results beyond the newest HEALTH_CHECK_HISTORY_MAX, one statement. */
  async trimHistory(manager: Executor, checkIds: string[]): Promise<void> {
    if (checkIds.length === 0) return;
    await manager.query(
      `DELETE FROM health_check_results r
       USING unnest($1::text[]) AS c(id)
       CROSS JOIN LATERAL (SELECT id FROM health_check_results WHERE health_check_id = c.id
                           ORDER BY id DESC OFFSET $2 LIMIT 1) AS cut
       WHERE r.health_check_id = c.id AND r.id <= cut.id`,
      [checkIds, HEALTH_CHECK_HISTORY_MAX],
    );
  }

  /** The newest HEALTH_CHECK_HISTORY_MAX results (more may be stored until the next trim). */
  async history(checkId: string, page: ResolvedPage): Promise<Page<HealthCheckResultDto>> {
    const offset = (page.page - 1) * page.per_page;
    const limit = Math.max(0, Math.min(page.per_page, HEALTH_CHECK_HISTORY_MAX - offset));
    const rows: ResultRow[] = await this.dataSource.query(
      `SELECT id, health_check_id, checked_at, success, status, handshake_ms, tls_version, fingerprint,
              not_after, chain, error
       FROM health_check_results WHERE health_check_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
      [checkId, limit, offset],
    );
    const [{ total }] = await this.dataSource.query(
      'SELECT least(count(*), $2) AS total FROM health_check_results WHERE health_check_id = $1',
      [checkId, HEALTH_CHECK_HISTORY_MAX],
    );
    return { data: rows.map(resultDto), total: Number(total), page: page.page, per_page: page.per_page };
  }

  async summary(now: Date): Promise<HealthCheckSummary> {
    const rows: { status: HealthCheckStatus; acknowledged: boolean; count: string }[] =
      await this.dataSource.query(
        `SELECT status, acknowledged_at IS NOT NULL AS acknowledged, count(*) AS count
       FROM health_checks GROUP BY 1, 2`,
      );
    const summary: HealthCheckSummary = {
      total: 0,
      healthy: 0,
      degraded: 0,
      down: 0,
      cert_mismatch: 0,
      acknowledged: 0,
      alerting: 0,
      generated_at: now.toISOString(),
    };
    for (const row of rows) {
      const count = Number(row.count);
      summary.total += count;
      summary[row.status] += count;
      if (row.status !== 'healthy') summary[row.acknowledged ? 'acknowledged' : 'alerting'] += count;
    }
    return summary;
  }
}
