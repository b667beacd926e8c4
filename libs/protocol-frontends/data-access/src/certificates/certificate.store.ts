import { createHash } from 'node:crypto';
import { SqlExecutor } from '@certlane/platform';
import { orderStatusUpdate } from '../orders/order.store';
import { CompositeStatement, guardedBy, rowInsert } from '../sql/composite-statement';
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
  /** RFC 8555 7.4.2: the same leaf's chains to other trust anchors, each a full PEM like pem_chain. */
  alternate_chains: string[];
}

const COLUMNS =
  'id, order_id, account_id, issuer_id, serial_hex, pem_chain, not_before, not_after, renewal_id, revoked_at, revocation_reason, certificate_id, replaced_by_id, alternate_chains';

/** The certificates ACME orders produced: what `cert/{id}` downloads and revokeCert finds. */
export class CertificateStore {
  constructor(private readonly executor: SqlExecutor) {}

  async insert(input: NewAcmeCertificate): Promise<AcmeCertificateRow> {
    const statement = new CompositeStatement();
    const [row] = await rowsOf<AcmeCertificateRow>(
      this.executor,
      `${certificateInsert(statement, input, randomId())} RETURNING ${COLUMNS}`,
      statement.values,
    );
    return row;
  }

  /**
   * A processing order's certificate stored and the order valid in one statement (ADR 0067
   * amendment), starting with the order's compare-and-set: of two replicas storing the same order's
   * certificate, one stores it and the other stores nothing. With `replaces`, the certificate it
   * renews is linked to it once (`markReplaced`). `alongside` adds parts (the audit record) under
   * the conditions "stored" and "stored and linked". The new certificate's id, or null.
   */
  async storeForOrder(
    input: NewAcmeCertificate & { replaces?: string },
    alongside: (statement: CompositeStatement, conditions: { stored: string; renewed: string }) => void,
  ): Promise<{ id: string; renewed: boolean } | null> {
    const statement = new CompositeStatement();
    const id = randomId();
    statement.with(
      'order_row',
      orderStatusUpdate(statement, { id: input.orderId, from: 'processing', to: 'valid' }),
    );
    const stored = guardedBy('order_row');
    statement.with('certificate', certificateInsert(statement, input, id, stored));
    let renewed = 'false';
    if (input.replaces !== undefined) {
      statement.with(
        'replaced',
        `${replacementUpdate(statement, input.replaces, id)} AND ${stored} RETURNING id`,
      );
      renewed = guardedBy('replaced');
    }
    alongside(statement, { stored, renewed });
    const [row] = await rowsOf<{ stored: boolean; renewed: boolean }>(
      this.executor,
      statement.text(`SELECT ${stored} AS stored, ${renewed} AS renewed`),
      statement.values,
    );
    return row.stored ? { id, renewed: row.renewed } : null;
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
   * The account's certificates for exactly these identifiers (in any order and case) that nothing
   * replaced yet, newest first (at most 16): what an order without `replaces` may renew.
   */
  async unreplacedForIdentifiers(
    accountId: string,
    identifiers: { type: string; value: string }[],
  ): Promise<AcmeCertificateRow[]> {
    return rowsOf<AcmeCertificateRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM acme_certificates
       WHERE account_id = $1 AND identifier_set = $2 AND replaced_by_id IS NULL
       ORDER BY created_at DESC LIMIT 16`,
      [accountId, identifierSet(identifiers)],
    );
  }

  /** Links a renewal to the certificate it replaces, once; false when something replaced it first. */
  async markReplaced(id: string, replacedById: string): Promise<boolean> {
    const statement = new CompositeStatement();
    const sql = `${replacementUpdate(statement, id, replacedById)} RETURNING id`;
    return (await rowsOf(this.executor, sql, statement.values)).length === 1;
  }

  /** Marks it revoked as its issuer recorded it; a revocation already marked stays as it is. */
  async markRevoked(id: string, reason: string, revokedAt: Date): Promise<void> {
    await rowsOf(
      this.executor,
      `UPDATE acme_certificates SET revoked_at = $3, revocation_reason = $2
        WHERE id = $1 AND ${REVOCABLE_BY('$2')}`,
      [id, reason, revokedAt],
    );
  }

  /**
   * A revocation issuance recorded for a serial, however it came (ACME, an operator's revoke, a
   * bulk revoke): the ACME certificate with that serial is marked as the issuer recorded it, so
   * renewal-info suggests renewing now (RFC 9773 4.2) and revokeCert answers alreadyRevoked.
   * removeFromCRL lifts a certificateHold (RFC 5280 5.3.1) and nothing else. How many it changed.
   */
  async followIssuerRevocation(event: {
    issuer_id: string;
    serial_hex: string;
    reason: string;
    revoked_at: string;
  }): Promise<number> {
    const rows =
      event.reason === 'removeFromCRL'
        ? await rowsOf(
            this.executor,
            `UPDATE acme_certificates SET revoked_at = NULL, revocation_reason = NULL
              WHERE issuer_id = $1 AND serial_hex = $2 AND revocation_reason = 'certificateHold' RETURNING id`,
            [event.issuer_id, event.serial_hex],
          )
        : await rowsOf(
            this.executor,
            `UPDATE acme_certificates SET revoked_at = $3, revocation_reason = $4
              WHERE issuer_id = $1 AND serial_hex = $2 AND ${REVOCABLE_BY('$4')} RETURNING id`,
            [event.issuer_id, event.serial_hex, new Date(event.revoked_at), event.reason],
          );
    return rows.length;
  }
}

/**
 * Which rows a revocation with the reason in `reasonParameter` changes: one not revoked, or one on
 * hold that a final reason replaces (RFC 5280 5.3.1; issuance keeps the hold's date, ADR 0037).
 */
const REVOCABLE_BY = (reasonParameter: string) =>
  `(revoked_at IS NULL OR (revocation_reason = 'certificateHold' AND ${reasonParameter} <> 'certificateHold'))`;

/** The key of an identifier set, whatever its order: SHA-256 of the sorted `type:value` lines. */
function identifierSet(identifiers: { type: string; value: string }[]): string {
  const lines = [...new Set(identifiers.map((i) => `${i.type}:${i.value.toLowerCase()}`))].sort();
  return createHash('sha256').update(lines.join('\n')).digest('base64url');
}

/** What `insert` and `storeForOrder` store. */
export interface NewAcmeCertificate {
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
  /** RFC 8555 7.4.2: chains of the same leaf to other trust anchors (full PEMs, leaf first). */
  alternateChains?: string[];
}

function certificateInsert(
  statement: CompositeStatement,
  input: NewAcmeCertificate,
  id: string,
  condition = 'true',
): string {
  return rowInsert(statement, 'acme_certificates', condition, [
    ['id', 'text', id],
    ['order_id', 'text', input.orderId],
    ['account_id', 'text', input.accountId],
    ['issuer_id', 'text', input.issuerId],
    ['serial_hex', 'text', input.serialHex],
    ['pem_chain', 'text', input.pemChain],
    ['not_before', 'timestamptz', input.notBefore],
    ['not_after', 'timestamptz', input.notAfter],
    ['renewal_id', 'text', input.renewalId],
    ['identifier_set', 'text', identifierSet(input.identifiers)],
    ['certificate_id', 'text', input.certificateId ?? null],
    ['alternate_chains', 'text[]', input.alternateChains ?? []],
  ]);
}

/** Links a renewal to the certificate it replaces, once (the caller adds RETURNING or conditions). */
function replacementUpdate(statement: CompositeStatement, id: string, replacedById: string): string {
  return `UPDATE acme_certificates SET replaced_by_id = ${statement.value(replacedById)}
    WHERE id = ${statement.value(id)} AND replaced_by_id IS NULL`;
}
