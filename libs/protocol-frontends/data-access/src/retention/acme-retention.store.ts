import { SqlExecutor } from '@certlane/platform';
import { countOf } from '../sql/rows';

/** What one purge pass removed, per kind of record. */
export interface AcmePurged {
  /** Orders that ended without a certificate. */
  orders: number;
  /** Certificates that expired before the cutoff, each with its order. */
  certificates: number;
  /** Authorizations (with their challenges) that expired before the cutoff and no order names. */
  authorizations: number;
  /** Validation attempts made before the cutoff. */
  attempts: number;
  /** Whether a step removed a whole batch (more may be left). */
  filledABatch: boolean;
}

/**
 * The ACME retention purge (ADR 0073). Each step is one statement that picks at most `batch`
 * rows `FOR UPDATE SKIP LOCKED` and deletes them, so replicas purging at once split the work and
 * a crash between steps leaves nothing the next pass cannot find again. Orders go before the
 * authorizations they name, so an authorization is purged once its last order has gone.
 */
export class AcmeRetentionStore {
  constructor(private readonly executor: SqlExecutor) {}

  async purge(cutoff: Date, batch = 1000): Promise<AcmePurged> {
    const orders = await this.deleteEach(
      'acme_orders',
      `SELECT o.id FROM acme_orders o
        WHERE o.status = 'invalid' AND o.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM acme_certificates c WHERE c.order_id = o.id)
        ORDER BY o.created_at`,
      cutoff,
      batch,
    );
    // A certificate and its order in one statement: the foreign key is checked at its end. One
    // that a kept certificate names as its replacement stays until that one has gone.
    const certificates = await countOf(
      this.executor,
      `WITH doomed AS (
         SELECT c.id, c.order_id FROM acme_certificates c
          WHERE c.not_after < $1
            AND NOT EXISTS (SELECT 1 FROM acme_certificates p WHERE p.replaced_by_id = c.id)
          ORDER BY c.not_after LIMIT $2 FOR UPDATE SKIP LOCKED),
       certificates AS (DELETE FROM acme_certificates c USING doomed WHERE c.id = doomed.id RETURNING c.order_id),
       orders AS (DELETE FROM acme_orders o USING certificates WHERE o.id = certificates.order_id RETURNING 1)
       SELECT count(*)::int AS n FROM certificates`,
      [cutoff, batch],
    );
    // Challenges go with their authorization (ON DELETE CASCADE).
    const authorizations = await this.deleteEach(
      'acme_authorizations',
      `SELECT a.id FROM acme_authorizations a
        WHERE a.expires_at < $1
          AND NOT EXISTS (SELECT 1 FROM acme_order_authorizations oa WHERE oa.authorization_id = a.id)
        ORDER BY a.expires_at`,
      cutoff,
      batch,
    );
    const attempts = await this.deleteEach(
      'acme_validation_attempts',
      'SELECT id FROM acme_validation_attempts WHERE attempted_at < $1 ORDER BY attempted_at, id',
      cutoff,
      batch,
    );
    return {
      orders,
      certificates,
      authorizations,
      attempts,
      filledABatch: [orders, certificates, authorizations, attempts].some((n) => n >= batch),
    };
  }

  /** Deletes the first `batch` rows of `table` whose ids `select` (with `$1` the cutoff) lists. */
  private deleteEach(table: string, select: string, cutoff: Date, batch: number): Promise<number> {
    return countOf(
      this.executor,
      `WITH doomed AS (${select} LIMIT $2 FOR UPDATE SKIP LOCKED),
       gone AS (DELETE FROM ${table} t USING doomed WHERE t.id = doomed.id RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [cutoff, batch],
    );
  }
}
