import { createHash } from 'node:crypto';
import { SqlExecutor } from '@certlane/platform';
import { randomId, readRow, RowRead, rowsOf } from '../sql/rows';

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
    /** The order's identifiers: what a later order for the same set renews. */
    identifiers: { type: string; value: string }[];
    /** The inventory certificate that records it (issuance's `issue-and-record`). */
    certificateId?: string;
  }): Promise<AcmeCertificateRow> {
    const [row] = await rowsOf<AcmeCertificateRow>(
      this.executor,
      `INSERT INTO acme_certificates
         (id, order_id, account_id, issuer_id, serial_hex, pem_chain, not_before, not_after, renewal_id, identifier_set, certificate_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
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
        identifierSet(input.identifiers),
        input.certificateId ?? null,
      ],
    );
    return row;
  }

  byId(id: string): Promise<AcmeCertificateRow | null> {
    return readRow(this.executor, CertificateStore.byIdRead(id));
  }

  static byIdRead(id: string): RowRead<AcmeCertificateRow> {
    return {
      id,
      select: (idParameter) => `SELECT ${COLUMNS} FROM acme_certificates WHERE id = ${idParameter}`,
      read: (row) => row as unknown as AcmeCertificateRow,
    };
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
      `SELECT ${COLUMNS} FROM acme_certificates
       WHERE account_id = $1 AND identifier_set = $2 AND replaced_by_id IS NULL
       ORDER BY created_at DESC LIMIT 1`,
      [accountId, identifierSet(identifiers)],
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

/** The key of an identifier set, whatever its order: SHA-256 of the sorted `type:value` lines. */
function identifierSet(identifiers: { type: string; value: string }[]): string {
  const lines = [...new Set(identifiers.map((i) => `${i.type}:${i.value.toLowerCase()}`))].sort();
  return createHash('sha256').update(lines.join('\n')).digest('base64url');
}
