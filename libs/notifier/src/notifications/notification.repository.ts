import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DigestSubject } from '@certlane/contracts';
import {
  Contacts,
  DeliveryState,
  NotificationEvent,
  PlannedDelivery,
  RoutingRule,
  Severity,
} from '@certlane/notifier-domain';
import { SqlExecutor } from '@certlane/platform';
import { DataSource } from 'typeorm';

/** A notification as the sweep sees it: delivery state plus what to send. */
export interface NotificationRow extends DeliveryState {
  id: string;
  dedup_key: string;
  event_type: string;
  severity: Severity;
  certificate_id: string | null;
  notifier_id: string;
  recipients: string[];
  title: string;
  event: NotificationEvent;
  created_at: Date;
  sent_at?: Date | null;
  /** Email recipients that accepted it in an earlier attempt, and those refused for good (5yz). */
  delivered_to?: string[];
  refused_to?: string[];
}

/** A notification's new state, with the recipients an attempt added (migrations/notifier/0004). */
export interface StateUpdate {
  id: string;
  state: DeliveryState;
  delivered_to?: string[];
  refused_to?: string[];
}

/** notifications, routing_rules and contacts (migrations/notifier/0001). */
@Injectable()
export class NotificationRepository {
  constructor(@InjectDataSource('notifier') readonly dataSource: DataSource) {}

  async enabledRules(executor: SqlExecutor): Promise<RoutingRule[]> {
    return (await executor.query(
      `SELECT id, enabled, event_types, min_severity, owner_ids, team_ids, environments, issuer_ids, notifier_ids
         FROM routing_rules WHERE enabled ORDER BY id`,
    )) as RoutingRule[];
  }

  /** The contact addresses of the owners and teams named (one query). */
  async contacts(
    executor: SqlExecutor,
    ownerIds: readonly (string | null)[],
    teamIds: readonly (string | null)[],
  ): Promise<Contacts> {
    const present = (ids: readonly (string | null)[]) => [...new Set(ids.filter((id): id is string => !!id))];
    const rows = (await executor.query(
      `SELECT kind, subject_id, addresses FROM contacts
        WHERE (kind = 'owner' AND subject_id = ANY($1)) OR (kind = 'team' AND subject_id = ANY($2))`,
      [present(ownerIds), present(teamIds)],
    )) as { kind: 'owner' | 'team'; subject_id: string; addresses: string[] }[];
    const owners = new Map<string, string[]>();
    const teams = new Map<string, string[]>();
    for (const row of rows) (row.kind === 'owner' ? owners : teams).set(row.subject_id, row.addresses);
    return { owners, teams };
  }

  /** The contact addresses of every owner and team the digest facts name (one query). */
  async contactsFor(
    executor: SqlExecutor,
    facts: Record<'expiring' | 'failed_jobs' | 'violations' | 'approvals', DigestSubject[]>,
  ): Promise<Contacts> {
    const lines = [...facts.expiring, ...facts.failed_jobs, ...facts.violations, ...facts.approvals];
    return this.contacts(
      executor,
      lines.map((line) => line.owner_id),
      lines.map((line) => line.team_id),
    );
  }

  async digestRunExists(runId: string): Promise<boolean> {
    const rows = (await this.dataSource.query('SELECT 1 FROM digest_runs WHERE run_id = $1', [
      runId,
    ])) as unknown[];
    return rows.length > 0;
  }

  /**
   * Records a digest run; false when it is already recorded. A concurrent claimer of the same id
   * waits on the unique key until the first commits (then false) or rolls back (then true).
   */
  async claimDigestRun(executor: SqlExecutor, runId: string, requestedBy: string | null): Promise<boolean> {
    const rows = (await executor.query(
      `INSERT INTO digest_runs (run_id, requested_by) VALUES ($1, $2) ON CONFLICT (run_id) DO NOTHING RETURNING run_id`,
      [runId, requestedBy],
    )) as unknown[];
    return rows.length > 0;
  }

  async finishDigestRun(
    executor: SqlExecutor,
    runId: string,
    digests: number,
    notifications: number,
  ): Promise<void> {
    await executor.query('UPDATE digest_runs SET digests = $2, notifications = $3 WHERE run_id = $1', [
      runId,
      digests,
      notifications,
    ]);
  }

  /** Stores the planned deliveries; a dedup key already present adds nothing. Returns how many were new. */
  insertPlanned(executor: SqlExecutor, event: NotificationEvent, plans: PlannedDelivery[]): Promise<number> {
    return this.insertPlannedMany(executor, [{ event, plans }]);
  }

  /**
   * insertPlanned for many events in one statement (a consumer's batch): a dedup key already
   * present, or repeated in the batch, adds nothing. Returns how many were new.
   */
  async insertPlannedMany(
    executor: SqlExecutor,
    batch: readonly { event: NotificationEvent; plans: readonly PlannedDelivery[] }[],
  ): Promise<number> {
    const rows = batch.flatMap(({ event, plans }) =>
      plans.map((plan) => ({
        id: randomUUID(),
        dedup_key: plan.dedup_key,
        event_type: event.type,
        severity: event.severity,
        certificate_id: event.certificate_id,
        notifier_id: plan.notifier_id,
        recipients: plan.recipients,
        title: event.title,
        event,
      })),
    );
    if (rows.length === 0) return 0;
    const inserted = (await executor.query(
      `INSERT INTO notifications
         (id, dedup_key, event_type, severity, certificate_id, notifier_id, recipients, title, event)
       SELECT id, dedup_key, event_type, severity, certificate_id, notifier_id, recipients, title, event
         FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, dedup_key text, event_type text, severity text,
              certificate_id text, notifier_id text, recipients text[], title text, event jsonb)
       ON CONFLICT (dedup_key) DO NOTHING RETURNING id`,
      [JSON.stringify(rows)],
    )) as unknown[];
    return inserted.length;
  }

  /**
   * Locks up to `limit` due notifications (pending, or failed with next_retry_at passed), oldest
   * first, skipping rows another replica holds: call inside the transaction that records the
   * attempts' outcomes.
   */
  async claimDue(executor: SqlExecutor, now: Date, limit: number): Promise<NotificationRow[]> {
    return (await executor.query(
      `SELECT id, dedup_key, event_type, severity, certificate_id, notifier_id, recipients, title, event,
              status, retry_count, next_retry_at, last_error, created_at, delivered_to, refused_to
         FROM notifications
        WHERE status IN ('pending', 'failed') AND coalesce(next_retry_at, created_at) <= $1
        ORDER BY coalesce(next_retry_at, created_at)
        LIMIT $2
        FOR UPDATE SKIP LOCKED`,
      [now, limit],
    )) as NotificationRow[];
  }

  /**
   * Records many claimed notifications' new states in one statement: `sent_at` becomes `now` for
   * those now sent. A notification given back without an attempt (its notifier's rate slot or
   * send permit was not free) keeps its state with next_retry_at moved. Recipients an attempt
   * reached or saw refused for good are added to delivered_to and refused_to; a requeue (dead to
   * pending) empties refused_to.
   */
  async saveStates(executor: SqlExecutor, states: readonly StateUpdate[], now: Date): Promise<void> {
    if (states.length === 0) return;
    await executor.query(
      `UPDATE notifications n
          SET status = s.status, retry_count = s.retry_count, next_retry_at = s.next_retry_at,
              last_error = s.last_error,
              sent_at = CASE WHEN s.status = 'sent' THEN $2::timestamptz ELSE n.sent_at END,
              delivered_to = n.delivered_to || coalesce(s.delivered_to, '{}'),
              refused_to = CASE WHEN n.status = 'dead' AND s.status = 'pending' THEN '{}'
                                ELSE n.refused_to || coalesce(s.refused_to, '{}') END
         FROM jsonb_to_recordset($1::jsonb) AS s(id uuid, status text, retry_count int,
              next_retry_at timestamptz, last_error text, delivered_to text[], refused_to text[])
        WHERE n.id = s.id`,
      [
        JSON.stringify(
          states.map(({ id, state, delivered_to, refused_to }) => ({
            id,
            ...state,
            delivered_to,
            refused_to,
          })),
        ),
        now,
      ],
    );
  }

  async deadCount(): Promise<number> {
    const [row] = (await this.dataSource.query(
      `SELECT count(*)::int AS n FROM notifications WHERE status = 'dead'`,
    )) as { n: number }[];
    return row.n;
  }

  /** A page of notifications, newest first, for the API. */
  async page(
    filters: { status?: string; event_type?: string; certificate_id?: string },
    limit: number,
    offset: number,
  ): Promise<{ rows: NotificationRow[]; total: number }> {
    const where = `($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR event_type = $2)
                   AND ($3::text IS NULL OR certificate_id = $3)`;
    const args = [filters.status ?? null, filters.event_type ?? null, filters.certificate_id ?? null];
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM notifications WHERE ${where} ORDER BY created_at DESC, id LIMIT $4 OFFSET $5`,
      [...args, limit, offset],
    )) as NotificationRow[];
    const [count] = (await this.dataSource.query(
      `SELECT count(*)::int AS n FROM notifications WHERE ${where}`,
      args,
    )) as { n: number }[];
    return { rows, total: count.n };
  }

  /** One notification, locked for update when `executor` is a transaction. */
  async get(executor: SqlExecutor, id: string, lock = false): Promise<NotificationRow | undefined> {
    const rows = (await executor.query(
      `SELECT ${COLUMNS} FROM notifications WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    )) as NotificationRow[];
    return rows[0];
  }
}

const COLUMNS = `id, dedup_key, event_type, severity, certificate_id, notifier_id, recipients, title, event,
  status, retry_count, next_retry_at, last_error, sent_at, created_at`;
