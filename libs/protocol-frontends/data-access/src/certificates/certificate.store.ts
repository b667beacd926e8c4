import { SqlExecutor } from '@certlane/platform';
import { randomId, rowsOf } from '../sql/rows';

export interface AcmeCertificateRow {
  id: string;
  order_id: string;
  account_id: string;
  issuer_id: string;
  serial_hex: string;
  pem_chain: string;
  not_before: Date;
  not_after: Date;
  renewal_id: string;
  revoked_at: Date | null;
  revocation_reason: string | null;
  /** The inventory certificate this one is a version of (issuance), once recorded. */
  certificate_id: string | null;
  /** The ACME certificate that renewed this one. */
  replaced_by_id: string | null;
}

const COLUMNS =
  'id, order_id, account_id, issuer_id, serial_hex, pem_chain, not_before, not_after, renewal_id, revoked_at, revocation_reason, certificate_id, replaced_by_id';

/** The certificates ACME orders produced: what `cert/{id}` downloads and revokeCert finds. */
export class CertificateStore {
  constructor(private readonly executor: SqlExecutor) {}

  async insert(input: {
    orderId: string;
    accountId: string;
    issuerId: string;
    serialHex: string;
    pemChain: string;
    notBefore: Date;
    notAfter: Date;
    renewalId: string;
  }): Promise<AcmeCertificateRow> {
    const [row] = await rowsOf<AcmeCertificateRow>(
      this.executor,
      `INSERT INTO acme_certificates
         (id, order_id, account_id, issuer_id, serial_hex, pem_chain, not_before, not_after, renewal_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
      [
        randomId(),
        input.orderId,
        input.accountId,
        input.issuerId,
        input.serialHex,
        input.pemChain,
        input.notBefore,
        input.notAfter,
        input.renewalId,
      ],
    );
    return row;
  }

  async byId(id: string): Promise<AcmeCertificateRow | null> {
    const rows = await rowsOf<AcmeCertificateRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM acme_certificates WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async byRenewalId(renewalId: string): Promise<AcmeCertificateRow | null> {
    const rows = await rowsOf<AcmeCertificateRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM acme_certificates WHERE renewal_id = $1`,
      [renewalId],
    );
    return rows[0] ?? null;
  }

  async byOrder(orderId: string): Promise<AcmeCertificateRow | null> {
    const rows = await rowsOf<AcmeCertificateRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM acme_certificates WHERE order_id = $1`,
      [orderId],
    );
    return rows[0] ?? null;
  }

  async bySerial(serialHex: string): Promise<AcmeCertificateRow[]> {
    return rowsOf<AcmeCertificateRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM acme_certificates WHERE serial_hex = $1`,
      [serialHex],
    );
  }

  /**
   * The certificate an order renews when it names none (RFC 9773 `replaces`): the newest of the
   * account's certificates for exactly the same identifiers that nothing has replaced yet.
   */
  async latestForIdentifiers(
    accountId: string,
    identifiers: { type: string; value: string }[],
  ): Promise<AcmeCertificateRow | null> {
    const rows = await rowsOf<AcmeCertificateRow>(
      this.executor,
      `SELECT ${COLUMNS.split(', ')
        .map((c) => `c.${c}`)
        .join(', ')}
       FROM acme_certificates c JOIN acme_orders o ON o.id = c.order_id
       WHERE c.account_id = $1 AND c.replaced_by_id IS NULL
         AND o.identifiers @> $2::jsonb AND $2::jsonb @> o.identifiers
       ORDER BY c.created_at DESC LIMIT 1`,
      [accountId, JSON.stringify(identifiers)],
    );
    return rows[0] ?? null;
  }

  /** Links a renewal to the certificate it replaces, once; false when something replaced it first. */
  async markReplaced(id: string, replacedById: string): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `UPDATE acme_certificates SET replaced_by_id = $2 WHERE id = $1 AND replaced_by_id IS NULL RETURNING id`,
      [id, replacedById],
    );
    return rows.length === 1;
  }

  /** Remembers the inventory certificate this one was recorded as a version of. */
  async setInventoryId(id: string, certificateId: string): Promise<void> {
    await this.executor.query('UPDATE acme_certificates SET certificate_id = $2 WHERE id = $1', [
      id,
      certificateId,
    ]);
  }

  /** Marks it revoked once; false when it already was (RFC 8555 7.6: alreadyRevoked). */
  async markRevoked(id: string, reason: string): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `UPDATE acme_certificates SET revoked_at = now(), revocation_reason = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id`,
      [id, reason],
    );
    return rows.length === 1;
  }
}
