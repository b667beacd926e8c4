import { EventSubject } from '@certlane/contracts';
import { escapeLiteral, Pool, PoolClient, QueryResult } from 'pg';
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

  /**
   * One pass: publishes up to a batch of pending rows; returns how many were published. Two round
   * trips to Postgres, each several statements in one simple-query message (every value in them
   * is a number or a literal the relay quotes itself): the transaction, its settings, the lock and
   * the read; then the marks and the commit.
   */
  async relayOnce(): Promise<number> {
    const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      return await this.pass(client);
    } catch (error) {
      // A connection that cannot even roll back is not given back to the pool.
      await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  private async pass(client: PoolClient): Promise<number> {
    const table = `"${this.options.schema}".outbox`;
    const lockKey = escapeLiteral(`certlane:outbox-relay:${this.options.schema}`);
    const batchSize = Math.trunc(this.options.batchSize ?? DEFAULT_BATCH_SIZE);
    // Marking rows published need not wait for a WAL flush: a mark lost in a crash means the
    // same envelope id is published again, which JetStream and consumers already deduplicate.
    // The pending rows are read by walking the partial index in seq order, never by a bitmap
    // scan: the planner picks one whenever the batch size exceeds its estimate of unpublished
    // rows, and a bitmap scan never marks the index entries of rows published since (dead
    // tuples) as dead, so every pass visited every row published since the last vacuum. A
    // replica that finds the lock taken reads nothing (the lock is the read's one-time filter).
    const results = (await client.query(
      `BEGIN; SET LOCAL synchronous_commit TO off; SET LOCAL enable_bitmapscan TO off;
       WITH relay AS (SELECT pg_try_advisory_xact_lock(hashtext(${lockKey})) AS locked)
       SELECT seq, subject, envelope->>'id' AS id, envelope::text AS json FROM ${table}
        WHERE (SELECT locked FROM relay) AND published_at IS NULL
        ORDER BY seq LIMIT ${batchSize} FOR UPDATE OF outbox SKIP LOCKED`,
    )) as unknown as QueryResult<OutboxRow>[];
    const rows = results[results.length - 1].rows;
    if (rows.length === 0) {
      await client.query('COMMIT');
      return 0;
    }
    const { published, error } = await this.bus.publishMany(
      rows.map((row) => ({ subject: row.subject as EventSubject, id: row.id, json: row.json })),
    );
    const statements: string[] = [];
    if (published < rows.length) {
      const message = String((error as Error)?.message ?? error).slice(0, 2000);
      statements.push(
        `UPDATE ${table} SET attempts = attempts + 1, last_error = ${escapeLiteral(message)}
          WHERE seq = ${seqOf(rows[published])}`,
      );
      this.options.onError?.(error);
    }
    if (published > 0)
      statements.push(
        `UPDATE ${table} SET published_at = now()
          WHERE seq = ANY('{${rows.slice(0, published).map(seqOf).join(',')}}'::bigint[])`,
      );
    await client.query([...statements, 'COMMIT'].join(';\n'));
    return published;
  }
}

/** A row's seq, checked to be the integer Postgres sent before it is written into a statement. */
function seqOf(row: OutboxRow): string {
  if (!/^[0-9]+$/.test(row.seq)) throw new Error(`outbox seq ${row.seq} is not an integer`);
  return row.seq;
}
