import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CertificateRevoked, RevocationReason } from '@certlane/contracts';
import { DataSource } from 'typeorm';
import { SqlExecutor } from '@certlane/platform';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One stored revocation. */
export interface RevocationRow {
  issuer_id: string;
  serial_hex: string;
  reason: RevocationReason;
  revoked_at: Date;
}

/** The revocations table of schema `revocation` (migrations/revocation/0001). */
@Injectable()
export class RevocationRepository {
  constructor(@InjectDataSource('revocation') readonly dataSource: DataSource) {}

  /**
   * Inserts a revocation with the CA that issued the certificate (null: not known yet, '': never
   * issued); a second event for the same issuer and serial changes nothing, except that a final
   * reason replaces a certificateHold (RFC 5280 5.3.1; the hold's date is kept, and `recorded_at`
   * moves so the CRL sweep rebuilds). True when stored.
   */
  async insert(
    executor: SqlExecutor,
    eventId: string,
    event: CertificateRevoked,
    caId: string | null,
  ): Promise<boolean> {
    const rows = (await executor.query(
      `INSERT INTO revocations AS r (issuer_id, serial_hex, reason, revoked_at, event_id, certificate_id, ca_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (issuer_id, serial_hex) DO UPDATE
         SET reason = EXCLUDED.reason, event_id = EXCLUDED.event_id, recorded_at = now()
         WHERE r.reason = 'certificateHold' AND EXCLUDED.reason NOT IN ('certificateHold', 'removeFromCRL')
       RETURNING serial_hex`,
      [
        event.issuer_id,
        event.serial_hex,
        event.reason,
        event.revoked_at,
        eventId,
        event.certificate_id ?? null,
        caId,
      ],
    )) as unknown[];
    return rows.length > 0;
  }

  /**
   * removeFromCRL (ADR 0037): deletes the serial's certificateHold, so the next CRL omits it and
   * OCSP answers good. Returns the CA of the released revocation (null when not known yet), or
   * undefined when the serial is not on hold (not revoked, or revoked for good: left as it is).
   */
  async releaseHold(
    executor: SqlExecutor,
    event: CertificateRevoked,
  ): Promise<{ ca_id: string | null } | undefined> {
    // TypeORM answers a DELETE with [rows, affected].
    const [rows] = (await executor.query(
      `DELETE FROM revocations WHERE issuer_id = $1 AND serial_hex = $2 AND reason = 'certificateHold'
       RETURNING ca_id`,
      [event.issuer_id, event.serial_hex],
    )) as [{ ca_id: string | null }[], number];
    return rows[0];
  }

  /** Revocations whose CA is not known yet (stored while issuance was unreachable, or before 0002). */
  unresolved(limit: number): Promise<{ issuer_id: string; serial_hex: string }[]> {
    return this.dataSource.query(
      'SELECT issuer_id, serial_hex FROM revocations WHERE ca_id IS NULL ORDER BY recorded_at LIMIT $1',
      [limit],
    );
  }

  /**
   * Records the CA of a revocation ('' when issuance never issued the serial). `recorded_at` moves
   * to now, so the CRL sweep sees the CA's CRL as older than the revocation and rebuilds it.
   */
  async resolveCa(issuerId: string, serialHex: string, caId: string): Promise<void> {
    await this.dataSource.query(
      'UPDATE revocations SET ca_id = $3, recorded_at = now() WHERE issuer_id = $1 AND serial_hex = $2 AND ca_id IS NULL',
      [issuerId, serialHex, caId],
    );
  }

  /** The revocation of a serial, with the CA that issued it (null: not known yet; '': none). */
  async find(
    issuerId: string,
    serialHex: string,
  ): Promise<(RevocationRow & { ca_id: string | null }) | undefined> {
    const rows: (RevocationRow & { ca_id: string | null })[] = await this.dataSource.query(
      'SELECT issuer_id, serial_hex, reason, revoked_at, ca_id FROM revocations WHERE issuer_id = $1 AND serial_hex = $2',
      [issuerId, serialHex],
    );
    return rows[0];
  }

  /** Whether `consumer` has recorded the event (its inbox holds the id; one that is not a UUID never is). */
  async consumed(consumer: string, eventId: string): Promise<boolean> {
    if (!UUID.test(eventId)) return false;
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM inbox WHERE consumer = $1 AND event_id = $2',
      [consumer, eventId],
    );
    return rows.length > 0;
  }

  /** Those of `eventIds` that `consumer` has recorded (ids that are not UUIDs never are). */
  async consumedMany(consumer: string, eventIds: string[]): Promise<string[]> {
    const uuids = eventIds.filter((id) => UUID.test(id));
    if (uuids.length === 0) return [];
    const rows: { event_id: string }[] = await this.dataSource.query(
      'SELECT event_id::text FROM inbox WHERE consumer = $1 AND event_id = ANY($2::uuid[])',
      [consumer, uuids],
    );
    return rows.map((row) => row.event_id);
  }

  /** Every revocation of certificates one CA of an issuer issued, in serial order. */
  listForCa(issuerId: string, caId: string): Promise<RevocationRow[]> {
    return this.dataSource.query(
      `SELECT issuer_id, serial_hex, reason, revoked_at FROM revocations WHERE issuer_id = $1 AND ca_id = $2
       ORDER BY serial_hex`,
      [issuerId, caId],
    );
  }

  /** A page of revocations (all issuers, or one), newest first, and their count. */
  async page(
    issuerId: string | undefined,
    limit: number,
    offset: number,
  ): Promise<{ rows: RevocationRow[]; total: number }> {
    const where = issuerId === undefined ? '' : 'WHERE issuer_id = $3';
    const params: unknown[] = issuerId === undefined ? [limit, offset] : [limit, offset, issuerId];
    const rows: RevocationRow[] = await this.dataSource.query(
      `SELECT issuer_id, serial_hex, reason, revoked_at FROM revocations ${where}
       ORDER BY revoked_at DESC, issuer_id, serial_hex LIMIT $1 OFFSET $2`,
      params,
    );
    const counted: { total: string }[] = await this.dataSource.query(
      `SELECT count(*) AS total FROM revocations ${issuerId === undefined ? '' : 'WHERE issuer_id = $1'}`,
      issuerId === undefined ? [] : [issuerId],
    );
    return { rows, total: Number(counted[0].total) };
  }
}
