import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CertificateRevoked, RevocationReason } from '@certlane/contracts';
import { DataSource } from 'typeorm';
import { SqlExecutor } from '@certlane/platform';

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

  /** Inserts a revocation; a second event for the same issuer and serial changes nothing. Returns true when stored. */
  async insert(executor: SqlExecutor, eventId: string, event: CertificateRevoked): Promise<boolean> {
    const rows = (await executor.query(
      `INSERT INTO revocations (issuer_id, serial_hex, reason, revoked_at, event_id, certificate_id)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING serial_hex`,
      [
        event.issuer_id,
        event.serial_hex,
        event.reason,
        event.revoked_at,
        eventId,
        event.certificate_id ?? null,
      ],
    )) as unknown[];
    return rows.length > 0;
  }

  async find(issuerId: string, serialHex: string): Promise<RevocationRow | undefined> {
    const rows: RevocationRow[] = await this.dataSource.query(
      'SELECT issuer_id, serial_hex, reason, revoked_at FROM revocations WHERE issuer_id = $1 AND serial_hex = $2',
      [issuerId, serialHex],
    );
    return rows[0];
  }

  /** Every revocation of an issuer, in serial order (what a full CRL lists). */
  listForIssuer(issuerId: string): Promise<RevocationRow[]> {
    return this.dataSource.query(
      'SELECT issuer_id, serial_hex, reason, revoked_at FROM revocations WHERE issuer_id = $1 ORDER BY serial_hex',
      [issuerId],
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

  /** Issuers that have at least one revocation or a published CRL. */
  async knownIssuers(): Promise<string[]> {
    const rows: { issuer_id: string }[] = await this.dataSource.query(
      'SELECT issuer_id FROM revocations UNION SELECT issuer_id FROM crl_state ORDER BY 1',
    );
    return rows.map((r) => r.issuer_id);
  }
}
