import { EventSubject } from '@certlane/contracts';
import { DataSource } from 'typeorm';
import { MessageBus } from './message-bus';

export interface OutboxRelayOptions {
  schema: string;
  /** Poll interval; `kick()` after a commit publishes sooner. */
  intervalMs?: number;
  /** Rows per pass, published with one JetStream round trip (`publishMany`). Default 500. */
  batchSize?: number;
  onError?: (error: unknown) => void;
  /** Published outbox rows are kept this long (for inspection), then deleted. Default 7 days. */
  keepPublishedDays?: number;
  /** Inbox ids are kept this long; longer than any redelivery can take. Default 30 days. */
  keepInboxDays?: number;
}

const PRUNE_INTERVAL_MS = 3600_000;

/** Rows per relay pass: a sweep's thousands of events in a few round trips (issue 22's benchmark). */
const DEFAULT_BATCH_SIZE = 500;

interface OutboxRow {
  seq: string;
  subject: string;
  id: string;
  json: string;
}

/**
 * Publishes committed outbox rows in commit order. One relay pass at a time per schema holds a
 * transaction advisory lock, so replicas never publish a row twice nor out of order (a replica
 * that finds the lock taken skips its pass); a crash after publishing but before marking
 * re-publishes the same envelope id, which JetStream and consumers deduplicate.
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private again = false;
  private stopped = true;
  private lastPrune = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: MessageBus,
    private readonly options: OutboxRelayOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Ask for a relay pass now (after a transaction that wrote to the outbox committed). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.loop(), delayMs);
  }

  private async loop(): Promise<void> {
    if (this.stopped || this.running) return;
    let published = 0;
    try {
      this.running = this.relayOnce();
      published = await this.running;
      if (Date.now() - this.lastPrune > PRUNE_INTERVAL_MS) {
        this.lastPrune = Date.now();
        await this.prune();
      }
    } catch (error) {
      this.options.onError?.(error);
    } finally {
      this.running = undefined;
    }
    if (this.stopped) return;
    const more = published === (this.options.batchSize ?? DEFAULT_BATCH_SIZE) || this.again;
    this.again = false;
    this.schedule(more ? 0 : (this.options.intervalMs ?? 1000));
  }

  /** Deletes published outbox rows and inbox ids past their retention; returns rows deleted. */
  async prune(): Promise<number> {
    const schema = `"${this.options.schema}"`;
    const [, outbox] = await this.dataSource.query(
      `DELETE FROM ${schema}.outbox WHERE published_at < now() - make_interval(days => $1)`,
      [this.options.keepPublishedDays ?? 7],
    );
    const [, inbox] = await this.dataSource.query(
      `DELETE FROM ${schema}.inbox WHERE processed_at < now() - make_interval(days => $1)`,
      [this.options.keepInboxDays ?? 30],
    );
    return Number(outbox ?? 0) + Number(inbox ?? 0);
  }

  /** One pass: publishes up to a batch of pending rows; returns how many were published. */
  async relayOnce(): Promise<number> {
    const table = `"${this.options.schema}".outbox`;
    return this.dataSource.transaction(async (manager) => {
      // Marking rows published need not wait for a WAL flush: a mark lost in a crash means the
      // same envelope id is published again, which JetStream and consumers already deduplicate.
      // The pending rows are read by walking the partial index in seq order, never by a bitmap
      // scan: the planner picks one whenever the batch size exceeds its estimate of unpublished
      // rows, and a bitmap scan never marks the index entries of rows published since (dead
      // tuples) as dead, so every pass visited every row published since the last vacuum.
      const [{ locked }]: { locked: boolean }[] = await manager.query(
        `SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked,
           set_config('synchronous_commit', 'off', true), set_config('enable_bitmapscan', 'off', true)`,
        [`certlane:outbox-relay:${this.options.schema}`],
      );
      if (!locked) return 0;
      const rows: OutboxRow[] = await manager.query(
        `SELECT seq, subject, envelope->>'id' AS id, envelope::text AS json FROM ${table}
          WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.options.batchSize ?? DEFAULT_BATCH_SIZE],
      );
      if (rows.length === 0) return 0;
      const { published, error } = await this.bus.publishMany(
        rows.map((row) => ({ subject: row.subject as EventSubject, id: row.id, json: row.json })),
      );
      const done = rows.slice(0, published).map((row) => row.seq);
      if (published < rows.length) {
        await manager.query(`UPDATE ${table} SET attempts = attempts + 1, last_error = $2 WHERE seq = $1`, [
          rows[published].seq,
          String((error as Error)?.message ?? error).slice(0, 2000),
        ]);
        this.options.onError?.(error);
      }
      if (done.length > 0) {
        await manager.query(`UPDATE ${table} SET published_at = now() WHERE seq = ANY($1::bigint[])`, [done]);
      }
      return done.length;
    });
  }
}
