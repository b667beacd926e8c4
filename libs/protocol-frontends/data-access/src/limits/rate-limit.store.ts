import { SqlExecutor } from '@certlane/platform';
import { checkRateLimit, RateLimit, rateLimitRefusal } from '@certlane/protocol-frontends-domain';
import { CompositeStatement, StatementGate } from '../sql/composite-statement';
import { rowsOf } from '../sql/rows';

/**
 * Rate limits in Postgres, shared by every replica. `take` counts slots per key in buckets of a
 * sixtieth of the window (migration 0017) and holds an advisory lock on the key until the end of
 * the caller's transaction (or of its own statement, outside one), so two replicas cannot both
 * take the last slot. `rateEventInsert` and `checkAll` keep one row per event (failed validations).
 */
export class RateLimitStore {
  constructor(private readonly executor: SqlExecutor) {}

  async take(key: string, rule: RateLimit, now = new Date()): Promise<ReturnType<typeof checkRateLimit>> {
    const statement = new CompositeStatement();
    const gate = rateSlotGate(statement, key, rule, now);
    const [{ full_at: full }] = await rowsOf<{ full_at: Date | null }>(
      this.executor,
      statement.text(`SELECT ${gate.answer} AS full_at`),
      statement.values,
    );
    return rateSlotOutcome(key, rule, full, now);
  }

  /**
   * Whether one more event of each key would fit, without taking a slot (a limit others feed):
   * the first key that is full, with its refusal, in one statement whatever the number of keys.
   */
  async checkAll(
    keys: string[],
    rule: RateLimit,
    now = new Date(),
  ): Promise<{ key: string; refusal: ReturnType<typeof rateLimitRefusal> } | null> {
    if (keys.length === 0) return null;
    const rows = await rowsOf<{ key: string; full_at: Date | null }>(
      this.executor,
      `SELECT k.key, (SELECT at FROM acme_rate_events e WHERE e.key = k.key AND e.at > $2
                      ORDER BY at DESC OFFSET $3 LIMIT 1) AS full_at
       FROM unnest($1::text[]) WITH ORDINALITY AS k(key, n) ORDER BY k.n`,
      [keys, new Date(now.getTime() - rule.windowMs), rule.limit - 1],
    );
    const full = rows.find((row) => row.full_at !== null);
    return full
      ? { key: full.key, refusal: rateLimitRefusal(full.key.split(':')[0], rule, full.full_at!, now) }
      : null;
  }

  /**
   * Deletes events older than `olderThanMs` and slot buckets wholly older (a bucket is a sixtieth
   * of a window of `olderThanMs`); safe on every replica. Returns the rows deleted.
   */
  async prune(olderThanMs: number, now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - olderThanMs);
    const events = await rowsOf<{ key: string }>(
      this.executor,
      'DELETE FROM acme_rate_events WHERE at <= $1 RETURNING key',
      [cutoff],
    );
    const buckets = await rowsOf<{ key: string }>(
      this.executor,
      'DELETE FROM acme_rate_buckets WHERE bucket <= $1 RETURNING key',
      [new Date(cutoff.getTime() - olderThanMs / 60)],
    );
    return events.length + buckets.length;
  }
}

/**
 * One event of `key` (a failed validation, say) for `checkAll` to count, as a part of the
 * statement that records what it counts, when `condition` holds.
 */
export function rateEventInsert(
  statement: CompositeStatement,
  key: string,
  at: Date,
  condition: string,
): string {
  return `INSERT INTO acme_rate_events (key, at)
    SELECT ${statement.value(key)}::text, ${statement.value(at)}::timestamptz WHERE ${condition}`;
}

/**
 * `take` as the gate of a larger statement (part `slot`): one statement (migration 0017) takes the
 * key's advisory lock, finds the bucket of the limit-th newest slot inside the window (at most 61
 * rows whatever the limit) and, when there is none, takes the slot; the statement's other parts
 * are written only then. Its answer, given to `rateSlotOutcome`, is when the window is full to.
 */
export function rateSlotGate(
  statement: CompositeStatement,
  key: string,
  rule: RateLimit,
  now: Date,
): StatementGate {
  statement.with(
    'slot',
    `SELECT acme_take_rate_slot(${statement.typed(key, 'text')}, ${statement.typed(
      new Date(now.getTime() - rule.windowMs),
      'timestamptz',
    )}, ${statement.typed(rule.limit, 'integer')}, ${statement.typed(now, 'timestamptz')}) AS full_at`,
  );
  return { condition: '(SELECT full_at FROM slot) IS NULL', answer: '(SELECT full_at FROM slot)' };
}

/** What a rate slot gate answered: taken, or the refusal (`rateLimited` with Retry-After). */
export function rateSlotOutcome(
  key: string,
  rule: RateLimit,
  fullAt: Date | null,
  now: Date,
): ReturnType<typeof checkRateLimit> {
  return fullAt ? rateLimitRefusal(key.split(':')[0], rule, fullAt, now) : { ok: true };
}
