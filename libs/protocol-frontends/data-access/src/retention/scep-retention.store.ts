import { X509Certificate } from 'node:crypto';
import { SqlExecutor } from '@certlane/platform';
import { countOf, rowsOf } from '../sql/rows';

/** What one SCEP purge pass did. */
export interface ScepPurged {
  /** Transactions that had not moved since before the cutoff. */
  transactions: number;
  /** Certificates GetCert no longer finds: they expired before the cutoff. */
  certificates: number;
  /** Certificates stored before migration 0023 whose notAfter was read from their PEM. */
  notAfterRead: number;
  /** Whether a step handled a whole batch (more may be left). */
  filledABatch: boolean;
}

/**
 * The SCEP retention purge (ADR 0074). Each delete is one statement that picks at most `batch`
 * rows `FOR UPDATE SKIP LOCKED`, so replicas purging at once split the work. A transaction goes
 * once it has not moved since the cutoff, whatever its status: an issued or rejected one is only
 * kept so a resend gets the same answer, and a pending one's approval expired long before. A
 * certificate stays with GetCert until it expired before the cutoff.
 */
export class ScepRetentionStore {
  constructor(private readonly executor: SqlExecutor) {}

  async purge(cutoff: Date, batch = 1000): Promise<ScepPurged> {
    const notAfterRead = await this.readNotAfter(batch);
    const transactions = await countOf(
      this.executor,
      `WITH doomed AS (
         SELECT profile_id, transaction_id FROM scep_transactions
          WHERE updated_at < $1 ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED),
       gone AS (
         DELETE FROM scep_transactions t USING doomed
          WHERE t.profile_id = doomed.profile_id AND t.transaction_id = doomed.transaction_id RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [cutoff, batch],
    );
    const certificates = await countOf(
      this.executor,
      `WITH doomed AS (
         SELECT profile_id, certificate_serial, certificate_issuer FROM scep_issued_certificates
          WHERE not_after < $1 ORDER BY not_after LIMIT $2 FOR UPDATE SKIP LOCKED),
       gone AS (
         DELETE FROM scep_issued_certificates c USING doomed
          WHERE c.profile_id = doomed.profile_id AND c.certificate_serial = doomed.certificate_serial
            AND c.certificate_issuer = doomed.certificate_issuer RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [cutoff, batch],
    );
    return {
      transactions,
      certificates,
      notAfterRead,
      filledABatch: [transactions, certificates, notAfterRead].some((n) => n >= batch),
    };
  }

  /**
   * Fills in the notAfter of up to `batch` certificates stored before it was kept, from their PEM.
   * One that does not parse is kept for good (`infinity`) rather than read again on every pass.
   * Two replicas may read the same rows; both write the same value.
   */
  private async readNotAfter(batch: number): Promise<number> {
    const rows = await rowsOf<{
      profile_id: string;
      certificate_serial: Buffer;
      certificate_issuer: Buffer;
      certificate_pem: string;
    }>(
      this.executor,
      `SELECT profile_id, certificate_serial, certificate_issuer, certificate_pem FROM scep_issued_certificates
        WHERE not_after IS NULL ORDER BY issued_at LIMIT $1`,
      [batch],
    );
    if (rows.length === 0) return 0;
    await this.executor.query(
      `UPDATE scep_issued_certificates c SET not_after = r.not_after
         FROM unnest($1::uuid[], $2::bytea[], $3::bytea[], $4::timestamptz[])
           AS r (profile_id, certificate_serial, certificate_issuer, not_after)
        WHERE c.profile_id = r.profile_id AND c.certificate_serial = r.certificate_serial
          AND c.certificate_issuer = r.certificate_issuer AND c.not_after IS NULL`,
      [
        rows.map((row) => row.profile_id),
        rows.map((row) => row.certificate_serial),
        rows.map((row) => row.certificate_issuer),
        rows.map((row) => notAfterOf(row.certificate_pem)),
      ],
    );
    return rows.length;
  }
}

function notAfterOf(pem: string): string {
  try {
    return new Date(new X509Certificate(pem).validTo).toISOString();
  } catch {
    return 'infinity';
  }
}
