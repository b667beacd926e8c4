import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AuditCategory,
  AuditChainHead,
  AuditEventDto,
  AuditOutcome,
  ExportAuditPageRequest,
  ResolvedPage,
} from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';

interface AuditRow {
  seq: string;
  event_id: string;
  service: string;
  action: string;
  event_category: AuditCategory;
  actor_id: string;
  resource_type: string;
  resource_id: string;
  outcome: AuditOutcome;
  request_id: string | null;
  details: Record<string, unknown>;
  occurred_at: Date;
  recorded_at: Date;
  prev_hash: string;
  hash: string;
}

const COLUMNS =
  'seq, event_id, service, action, event_category, actor_id, resource_type, resource_id, outcome, request_id, details, occurred_at, recorded_at, prev_hash, hash';

export function toAuditEventDto(row: AuditRow): AuditEventDto {
  return {
    seq: Number(row.seq),
    event_id: row.event_id,
    service: row.service,
    action: row.action,
    event_category: row.event_category,
    actor_id: row.actor_id,
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    outcome: row.outcome,
    ...(row.request_id === null ? {} : { request_id: row.request_id }),
    details: row.details,
    occurred_at: row.occurred_at.toISOString(),
    recorded_at: row.recorded_at.toISOString(),
    prev_hash: row.prev_hash,
    hash: row.hash,
  };
}

/** Filters of the audit list; every one optional. */
export interface AuditFilters {
  categories: AuditCategory[];
  action?: string;
  actor_id?: string;
  resource_type?: string;
  resource_id?: string;
  from?: string;
  to?: string;
}

/** Builds a WHERE clause with numbered parameters. */
class Where {
  readonly values: unknown[] = [];
  private readonly clauses: string[] = [];

  add(clause: string): void {
    this.clauses.push(clause);
  }

  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  sql(): string {
    return this.clauses.length > 0 ? `WHERE ${this.clauses.join(' AND ')}` : '';
  }
}

function filtersToWhere(filters: AuditFilters): Where {
  const where = new Where();
  if (filters.categories.length > 0) {
    where.add(`event_category = ANY(${where.param(filters.categories)}::text[])`);
  }
  for (const column of ['action', 'actor_id', 'resource_type', 'resource_id'] as const) {
    const value = filters[column];
    if (value !== undefined) where.add(`${column} = ${where.param(value)}`);
  }
  if (filters.from !== undefined) where.add(`occurred_at >= ${where.param(filters.from)}::timestamptz`);
  if (filters.to !== undefined) where.add(`occurred_at < ${where.param(filters.to)}::timestamptz`);
  return where;
}

/**
 * The audit_events table. Only INSERT and SELECT: the table refuses UPDATE, DELETE and
 * TRUNCATE (migrations/auth/0003_audit.sql).
 */
@Injectable()
export class AuditEventRepository {
  constructor(@InjectDataSource('auth') private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Serialises appends across auth replicas until the transaction ends, so the chain never forks. */
  async lockChain(manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['certlane:auth:audit-chain']);
  }

  async head(manager: EntityManager): Promise<AuditChainHead | undefined> {
    const rows: { seq: string; hash: string }[] = await manager.query(
      'SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1',
    );
    return rows[0] ? { seq: Number(rows[0].seq), hash: rows[0].hash } : undefined;
  }

  async existingEventIds(manager: EntityManager, eventIds: string[]): Promise<Set<string>> {
    const rows: { event_id: string }[] = await manager.query(
      'SELECT event_id FROM audit_events WHERE event_id = ANY($1::text[])',
      [eventIds],
    );
    return new Set(rows.map((row) => row.event_id));
  }

  async insert(manager: EntityManager, events: AuditEventDto[]): Promise<void> {
    const column = <K extends keyof AuditEventDto>(key: K) => events.map((event) => event[key] ?? null);
    await manager.query(
      `INSERT INTO audit_events (${COLUMNS})
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                            $7::text[], $8::text[], $9::text[], $10::text[], $11::jsonb[],
                            $12::timestamptz[], $13::timestamptz[], $14::text[], $15::text[])`,
      [
        column('seq'),
        column('event_id'),
        column('service'),
        column('action'),
        column('event_category'),
        column('actor_id'),
        column('resource_type'),
        column('resource_id'),
        column('outcome'),
        column('request_id'),
        events.map((event) => JSON.stringify(event.details ?? {})),
        column('occurred_at'),
        column('recorded_at'),
        column('prev_hash'),
        column('hash'),
      ],
    );
  }

  /** A page of the list, newest first. */
  async list(filters: AuditFilters, page: ResolvedPage): Promise<{ rows: AuditEventDto[]; total: number }> {
    const where = filtersToWhere(filters);
    const rows: AuditRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM audit_events ${where.sql()}
        ORDER BY occurred_at DESC, seq DESC LIMIT ${where.param(page.per_page)} OFFSET ${where.param(page.offset)}`,
      where.values,
    );
    const counted = filtersToWhere(filters);
    const [{ total }]: { total: number }[] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM audit_events ${counted.sql()}`,
      counted.values,
    );
    return { rows: rows.map(toAuditEventDto), total };
  }

  /** Events of an export window in (occurred_at, seq) order, after the cursor. */
  async exportPage(request: ExportAuditPageRequest): Promise<AuditEventDto[]> {
    const where = filtersToWhere({
      categories: request.categories ?? [],
      from: request.from,
      to: request.to,
    });
    if (request.after_occurred_at !== undefined && request.after_seq !== undefined) {
      where.add(
        `(occurred_at, seq) > (${where.param(request.after_occurred_at)}::timestamptz, ${where.param(request.after_seq)}::bigint)`,
      );
    }
    const rows: AuditRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM audit_events ${where.sql()} ORDER BY occurred_at, seq LIMIT ${where.param(request.limit)}`,
      where.values,
    );
    return rows.map(toAuditEventDto);
  }

  /** The chain in seq order, one batch after `afterSeq`, up to `maxSeq`. */
  async chainBatch(afterSeq: number, maxSeq: number, limit: number): Promise<AuditEventDto[]> {
    const rows: AuditRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM audit_events WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3`,
      [afterSeq, maxSeq, limit],
    );
    return rows.map(toAuditEventDto);
  }

  async maxSeq(): Promise<number> {
    const [{ max }]: { max: string | null }[] = await this.dataSource.query(
      'SELECT max(seq) AS max FROM audit_events',
    );
    return max === null ? 0 : Number(max);
  }
}
