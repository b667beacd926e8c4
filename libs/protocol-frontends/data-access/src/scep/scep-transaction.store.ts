import { SqlExecutor } from '@certlane/platform';
import { rowsOf } from '../sql/rows';

export interface ScepTransactionRow {
  profile_id: string;
  transaction_id: string;
  message_type: 'pkcsreq' | 'renewalreq';
  status: 'pending' | 'issued' | 'rejected';
  csr_pem: string;
  principal: string;
  approval_id: string | null;
  certificate_pem: string | null;
  reject_reason: string | null;
}

/** A request answered with a certificate at once: what `recordIssued` stores. */
export type ScepIssuedTransaction = Pick<
  ScepTransactionRow,
  'profile_id' | 'transaction_id' | 'message_type' | 'csr_pem' | 'principal'
> & {
  certificate_pem: string;
  /** The certificate's issuer Name and serialNumber, DER (what GetCert names it by). */
  certificate_issuer: Buffer;
  certificate_serial: Buffer;
  /** Its notAfter: the retention purge (ADR 0074) forgets it for GetCert that long after. */
  certificate_not_after: Date;
};

const COLUMNS =
  'profile_id, transaction_id, message_type, status, csr_pem, principal, approval_id, certificate_pem, reject_reason';

/**
 * Adds the certificates of `transactions` (a data-modifying WITH part returning issued rows) to
 * what GetCert finds: the transaction row keeps only its latest certificate.
 */
const REMEMBER_ISSUED = `INSERT INTO scep_issued_certificates (profile_id, certificate_issuer, certificate_serial, certificate_pem, transaction_id, not_after)
  SELECT profile_id, certificate_issuer, certificate_serial, certificate_pem, transaction_id, certificate_not_after
    FROM transactions WHERE certificate_serial IS NOT NULL
  ON CONFLICT DO NOTHING`;
const ISSUED_COLUMNS =
  'profile_id, certificate_issuer, certificate_serial, certificate_pem, transaction_id, certificate_not_after';

/**
 * SCEP transactions (RFC 8894 3.2.1.1, ADR 0059): what a transactionID asked for and how it
 * ended, so a client polling a PENDING request (GetCertInitial, or the same PKCSReq sent again)
 * is answered from here on every replica.
 */
export class ScepTransactionStore {
  constructor(private readonly executor: SqlExecutor) {}

  async get(profileId: string, transactionId: string): Promise<ScepTransactionRow | null> {
    const [row] = await rowsOf<ScepTransactionRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM scep_transactions WHERE profile_id = $1 AND transaction_id = $2`,
      [profileId, transactionId],
    );
    return row ?? null;
  }

  /**
   * `get` for the requests of a batch, in one statement: each key's row or null, in the keys'
   * order.
   */
  async getMany(
    keys: readonly { profileId: string; transactionId: string }[],
  ): Promise<(ScepTransactionRow | null)[]> {
    if (keys.length === 0) return [];
    const rows = await rowsOf<ScepTransactionRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM scep_transactions
       WHERE (profile_id, transaction_id) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`,
      [keys.map((key) => key.profileId), keys.map((key) => key.transactionId)],
    );
    const found = new Map(rows.map((row) => [`${row.profile_id} ${row.transaction_id}`, row]));
    return keys.map((key) => found.get(`${key.profileId} ${key.transactionId}`) ?? null);
  }

  /**
   * Records a request waiting for approval. A finished transaction of the same id (a renewal
   * reusing its PKCSReq's, as scepclient sends it) becomes this one; false when a request still
   * waiting holds the id. The finished one's certificate stays with GetCert.
   */
  async createPending(
    row: Pick<
      ScepTransactionRow,
      'profile_id' | 'transaction_id' | 'message_type' | 'csr_pem' | 'principal'
    > & {
      approval_id: string;
    },
  ): Promise<boolean> {
    const rows = await rowsOf<{ transaction_id: string }>(
      this.executor,
      `INSERT INTO scep_transactions (profile_id, transaction_id, message_type, status, csr_pem, principal, approval_id)
       VALUES ($1, $2, $3, 'pending', $4, $5, $6)
       ON CONFLICT (profile_id, transaction_id) DO UPDATE SET status = 'pending', message_type = EXCLUDED.message_type,
         csr_pem = EXCLUDED.csr_pem, principal = EXCLUDED.principal, approval_id = EXCLUDED.approval_id,
         certificate_pem = NULL, reject_reason = NULL, certificate_issuer = NULL, certificate_serial = NULL,
         certificate_not_after = NULL, updated_at = now()
         WHERE scep_transactions.status <> 'pending'
       RETURNING transaction_id`,
      [row.profile_id, row.transaction_id, row.message_type, row.csr_pem, row.principal, row.approval_id],
    );
    return rows.length > 0;
  }

  /**
   * Records a request answered with a certificate at once (a resend gets the same certificate). A
   * request issued under a transactionID used before (scepclient's RenewalReq reuses its
   * PKCSReq's) becomes that transaction, so a resend of it is recognised and not issued again.
   */
  recordIssued(row: ScepIssuedTransaction): Promise<void> {
    return this.recordIssuedMany([row]);
  }

  /**
   * `recordIssued` for the outcomes of concurrent requests, in one statement. Two rows of the same
   * transaction in one call fail the statement (the group commit then writes them one by one).
   */
  async recordIssuedMany(rows: readonly ScepIssuedTransaction[]): Promise<void> {
    if (rows.length === 0) return;
    const values = rows
      .map((_, r) => {
        const p = (column: number) => `$${r * 9 + column}`;
        return `(${p(1)}, ${p(2)}, ${p(3)}, 'issued', ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)})`;
      })
      .join(', ');
    await this.executor.query(
      `WITH transactions AS (
         INSERT INTO scep_transactions (profile_id, transaction_id, message_type, status, csr_pem, principal, certificate_pem, certificate_issuer, certificate_serial, certificate_not_after)
         VALUES ${values}
         ON CONFLICT (profile_id, transaction_id) DO UPDATE SET status = 'issued', message_type = EXCLUDED.message_type,
           csr_pem = EXCLUDED.csr_pem, principal = EXCLUDED.principal, certificate_pem = EXCLUDED.certificate_pem,
           certificate_issuer = EXCLUDED.certificate_issuer, certificate_serial = EXCLUDED.certificate_serial,
           certificate_not_after = EXCLUDED.certificate_not_after, updated_at = now()
         RETURNING ${ISSUED_COLUMNS})
       ${REMEMBER_ISSUED}`,
      rows.flatMap((row) => [
        row.profile_id,
        row.transaction_id,
        row.message_type,
        row.csr_pem,
        row.principal,
        row.certificate_pem,
        row.certificate_issuer,
        row.certificate_serial,
        row.certificate_not_after,
      ]),
    );
  }

  /**
   * GetCert (RFC 8894 3.3.4): the certificate this profile issued with that issuer Name and
   * serialNumber (both DER), or null.
   */
  async issuedCertificate(profileId: string, issuer: Buffer, serial: Buffer): Promise<string | null> {
    const [row] = await rowsOf<{ certificate_pem: string }>(
      this.executor,
      `SELECT certificate_pem FROM scep_issued_certificates
       WHERE profile_id = $1 AND certificate_serial = $2 AND certificate_issuer = $3`,
      [profileId, serial, issuer],
    );
    return row?.certificate_pem ?? null;
  }

  /** A pending request decided (ADR 0065): its certificate (with what GetCert names it by), or why not. */
  async finish(
    profileId: string,
    transactionId: string,
    outcome:
      | {
          status: 'issued';
          certificate_pem: string;
          certificate_issuer: Buffer;
          certificate_serial: Buffer;
          certificate_not_after: Date;
        }
      | { status: 'rejected'; reject_reason: string },
  ): Promise<void> {
    const issued = outcome.status === 'issued';
    await this.executor.query(
      `WITH transactions AS (
         UPDATE scep_transactions SET status = $3, certificate_pem = $4, reject_reason = $5,
           certificate_issuer = $6, certificate_serial = $7, certificate_not_after = $8, updated_at = now()
         WHERE profile_id = $1 AND transaction_id = $2 AND status = 'pending'
         RETURNING ${ISSUED_COLUMNS})
       ${REMEMBER_ISSUED}`,
      [
        profileId,
        transactionId,
        outcome.status,
        issued ? outcome.certificate_pem : null,
        issued ? null : outcome.reject_reason,
        issued ? outcome.certificate_issuer : null,
        issued ? outcome.certificate_serial : null,
        issued ? outcome.certificate_not_after : null,
      ],
    );
  }
}
