import { SqlExecutor } from '@certlane/platform';
import { checkRateLimit, RateLimit, rateLimitRefusal } from '@certlane/protocol-frontends-domain';
import { rowsOf } from '../sql/rows';

/**
 * Rate-limit events in Postgres, shared by every replica. `take` runs in the caller's
 * transaction under an advisory lock on the key, so two replicas cannot both take the last slot.
 */
export class RateLimitStore {
  constructor(private readonly executor: SqlExecutor) {}

  async take(key: string, rule: RateLimit, now = new Date()): Promise<ReturnType<typeof checkRateLimit>> {
    await this.executor.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 53))', [key]);
    // The limit-th newest event inside the window, if there are that many: one index probe,
    // whatever the limit, rather than reading every event.
    const [full] = await rowsOf<{ at: Date }>(
      this.executor,
      `SELECT at FROM acme_rate_events WHERE key = $1 AND at > $2 ORDER BY at DESC OFFSET $3 LIMIT 1`,
      [key, new Date(now.getTime() - rule.windowMs), rule.limit - 1],
    );
    if (full) return rateLimitRefusal(key.split(':')[0], rule, full.at, now);
    await this.executor.query('INSERT INTO acme_rate_events (key, at) VALUES ($1, $2)', [key, now]);
    return { ok: true };
  }

  /** Whether one more event of `key` would fit, without taking a slot (a limit others feed). */
  async check(key: string, rule: RateLimit, now = new Date()): Promise<ReturnType<typeof checkRateLimit>> {
    const rows = await rowsOf<{ at: Date }>(
      this.executor,
      `SELECT at FROM acme_rate_events WHERE key = $1 AND at > $2 ORDER BY at`,
      [key, new Date(now.getTime() - rule.windowMs)],
    );
    return checkRateLimit(
      key.split(':')[0],
      rule,
      rows.map((r) => r.at),
      now,
    );
  }

  /** Records one event of `key` (a failed validation, say) for `check` to count. */
  async record(key: string, now = new Date()): Promise<void> {
    await this.executor.query('INSERT INTO acme_rate_events (key, at) VALUES ($1, $2)', [key, now]);
  }

  /** Deletes events older than `olderThanMs`; safe on every replica. */
  async prune(olderThanMs: number, now = new Date()): Promise<number> {
    const rows = await rowsOf<{ key: string }>(
      this.executor,
      'DELETE FROM acme_rate_events WHERE at <= $1 RETURNING key',
      [new Date(now.getTime() - olderThanMs)],
    );
    return rows.length;
  }
}
