import { SqlExecutor } from '@certlane/platform';
import { randomId, rowsOf } from '../sql/rows';

export const DEFAULT_NONCE_TTL_MS = 15 * 60_000;

/**
 * ACME nonces (RFC 8555 6.5) in Postgres: any replica issues one, any replica accepts it once.
 * Consuming is a single DELETE ... RETURNING, so two replicas racing for the same nonce cannot
 * both succeed.
 */
export class NonceStore {
  constructor(
    private readonly executor: SqlExecutor,
    private readonly ttlMs = DEFAULT_NONCE_TTL_MS,
  ) {}

  async issue(): Promise<string> {
    const nonce = randomId();
    await this.executor.query(
      `INSERT INTO acme_nonces (nonce, expires_at) VALUES ($1, now() + $2 * interval '1 millisecond')`,
      [nonce, this.ttlMs],
    );
    return nonce;
  }

  /** Issues `count` nonces in one statement (the NoncePool's batches). */
  async issueMany(count: number): Promise<string[]> {
    const nonces = Array.from({ length: count }, () => randomId());
    await this.executor.query(
      `INSERT INTO acme_nonces (nonce, expires_at)
       SELECT unnest($1::text[]), now() + $2 * interval '1 millisecond'`,
      [nonces, this.ttlMs],
    );
    return nonces;
  }

  /** True exactly once for an issued nonce that has not expired. */
  async consume(nonce: string): Promise<boolean> {
    const rows = await rowsOf<{ nonce: string }>(
      this.executor,
      'DELETE FROM acme_nonces WHERE nonce = $1 AND expires_at > now() RETURNING nonce',
      [nonce],
    );
    return rows.length === 1;
  }

  /** Deletes up to `limit` expired nonces; returns how many. Safe to run on every replica. */
  async prune(limit = 10_000): Promise<number> {
    const rows = await rowsOf<{ nonce: string }>(
      this.executor,
      `DELETE FROM acme_nonces WHERE nonce IN (
         SELECT nonce FROM acme_nonces WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING nonce`,
      [limit],
    );
    return rows.length;
  }
}

/**
 * Hands out nonces issued in batches, so answering a request costs no statement of its own: one
 * INSERT of `batch` rows serves `batch` answers. Each nonce is still a row any replica consumes
 * once; a nonce is handed out only while it has at least `freshMs` of its lifetime left.
 */
export class NoncePool {
  private ready: { nonce: string; usableUntil: number }[] = [];
  private refill: Promise<void> | null = null;

  constructor(
    private readonly store: NonceStore,
    private readonly batch = 32,
    private readonly freshMs = DEFAULT_NONCE_TTL_MS - 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  async issue(): Promise<string> {
    for (;;) {
      while (this.ready.length) {
        const next = this.ready.pop()!;
        if (next.usableUntil > this.now()) return next.nonce;
      }
      this.refill ??= this.fill().finally(() => (this.refill = null));
      await this.refill;
    }
  }

  private async fill(): Promise<void> {
    const usableUntil = this.now() + this.freshMs;
    const nonces = await this.store.issueMany(this.batch);
    this.ready.push(...nonces.map((nonce) => ({ nonce, usableUntil })));
  }
}
