import {
  AuditRecord,
  auditSubject,
  EventEnvelope,
  EventOf,
  EventSubject,
  ServiceName,
} from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';
import {
  addManyToOutbox,
  addToOutbox,
  buildEnvelope,
  outboxInsertSql,
  SqlExecutor,
} from '../messaging/outbox';
import { OutboxRelay } from '../messaging/outbox-relay';

/** One row of `ServiceOutbox.addEach`: an event, or an audit record on the service's audit subject. */
export type OutboxItem = { subject: EventSubject; data: unknown; actorId?: string } | { audit: AuditRecord };

/** What a service's code uses to emit durable events: write in the transaction, then kick the relay. */
export class ServiceOutbox {
  /** The transactions (executors) this outbox wrote through, for `wroteThrough`. */
  private readonly written = new WeakSet<object>();

  constructor(
    readonly schema: string,
    readonly relay: OutboxRelay,
    /** The service whose audit subject this outbox publishes on. */
    readonly service: ServiceName,
  ) {}

  add<E extends EventSubject>(
    executor: SqlExecutor,
    subject: E,
    data: EventOf<E>,
    actorId?: string,
  ): Promise<EventEnvelope<EventOf<E>>> {
    this.written.add(executor);
    return addToOutbox(executor, this.schema, subject, data, actorId);
  }

  /** Several events of one subject in one statement, in the caller's transaction (see `add`). */
  addMany<E extends EventSubject>(
    executor: SqlExecutor,
    subject: E,
    data: EventOf<E>[],
    actorId?: string,
  ): Promise<EventEnvelope<EventOf<E>>[]> {
    if (data.length > 0) this.written.add(executor);
    return addManyToOutbox(
      executor,
      this.schema,
      data.map((item) => ({ subject, data: item, actorId })),
    );
  }

  /**
   * Events of several subjects and audit records (`audit: record`) in one statement, in the order
   * given, in the caller's transaction (see `add` and `audit`).
   */
  addEach(executor: SqlExecutor, items: OutboxItem[]): Promise<EventEnvelope<unknown>[]> {
    if (items.length > 0) this.written.add(executor);
    const subject = auditSubject(this.service);
    return addManyToOutbox(
      executor,
      this.schema,
      items.map((item) =>
        'audit' in item
          ? { subject, data: item.audit, actorId: item.audit.actor_id }
          : { subject: item.subject, data: item.data as EventOf<EventSubject>, actorId: item.actorId },
      ),
    ) as Promise<EventEnvelope<unknown>[]>;
  }

  /**
   * Records one audit event (spec 6.1) in the caller's transaction: it commits or rolls back with
   * the change it describes, and the relay carries it to the auth service's audit store.
   */
  audit(executor: SqlExecutor, record: AuditRecord): Promise<EventEnvelope<AuditRecord>> {
    this.written.add(executor);
    return addToOutbox(executor, this.schema, auditSubject(this.service), record, record.actor_id);
  }

  /** Several audit events in one statement, in the caller's transaction (see `audit`). */
  auditMany(executor: SqlExecutor, records: AuditRecord[]): Promise<EventEnvelope<AuditRecord>[]> {
    const subject = auditSubject(this.service);
    if (records.length > 0) this.written.add(executor);
    return addManyToOutbox(
      executor,
      this.schema,
      records.map((record) => ({ subject, data: record, actorId: record.actor_id })),
    ) as Promise<EventEnvelope<AuditRecord>[]>;
  }

  /**
   * Audit records written by a part of a larger statement (a data-modifying WITH, atomic without a
   * transaction): the INSERT of their envelopes, passed as the parameter `parameter` makes of
   * their JSON, when `condition` holds. Call `committed()` once the statement ran.
   */
  auditPart(records: AuditRecord[], parameter: (json: string) => string, condition?: string): string {
    const subject = auditSubject(this.service);
    const envelopes = records.map((record) => buildEnvelope(subject, record, record.actor_id));
    return outboxInsertSql(this.schema, parameter(JSON.stringify(envelopes)), condition);
  }

  /**
   * Audit records of outcomes already committed elsewhere (or of nothing stored), in one
   * statement of their own: atomic without a transaction (no BEGIN and COMMIT round trips); the
   * relay is kicked once it has committed.
   */
  async auditCommitted(dataSource: DataSource, records: AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.auditMany(dataSource, records);
    this.committed();
  }

  /** Whether an event or audit record was written through `executor` (a transaction's manager). */
  wroteThrough(executor: SqlExecutor): boolean {
    return this.written.has(executor);
  }

  /** Call after the transaction that wrote events has committed (UnitOfWork does). */
  committed(): void {
    this.relay.kick();
  }

  /** Runs `work` in one transaction of `dataSource` and kicks the relay once it has committed. */
  async transaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const result = await dataSource.transaction(work);
    this.committed();
    return result;
  }
}
