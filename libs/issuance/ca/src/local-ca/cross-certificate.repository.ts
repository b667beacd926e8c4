import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CaCrossCertificateDto, ResolvedPage, RevocationReason } from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';

export interface CrossCertificateRow {
  id: string;
  ca_id: string;
  parent_id: string | null;
  issuer: string;
  serial_hex: string;
  fingerprint_sha256: string;
  certificate_pem: string;
  not_before: Date;
  not_after: Date;
  created_at: Date;
  retired_at: Date | null;
  revoked_at: Date | null;
  revocation_reason: RevocationReason | null;
}

export type NewCrossCertificateRow = Omit<
  CrossCertificateRow,
  'created_at' | 'retired_at' | 'revoked_at' | 'revocation_reason'
>;

const COLUMNS = `id, ca_id, parent_id, issuer, serial_hex, fingerprint_sha256, certificate_pem, not_before,
  not_after, created_at, retired_at, revoked_at, revocation_reason`;

export function crossCertificateDto(row: CrossCertificateRow): CaCrossCertificateDto {
  return {
    id: row.id,
    ca_id: row.ca_id,
    parent_id: row.parent_id,
    issuer: row.issuer,
    serial_hex: row.serial_hex,
    not_before: row.not_before.toISOString(),
    not_after: row.not_after.toISOString(),
    certificate_pem: row.certificate_pem,
    status: row.revoked_at ? 'revoked' : row.retired_at ? 'retired' : 'active',
    created_at: row.created_at.toISOString(),
    retired_at: row.retired_at ? row.retired_at.toISOString() : null,
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
    revocation_reason: row.revocation_reason,
  };
}

/** Storage of the cross-certificates of local CAs (ADR 0070; raw SQL). */
@Injectable()
export class CrossCertificateRepository {
  constructor(@InjectDataSource('issuance') readonly dataSource: DataSource) {}

  async list(caId: string, page: ResolvedPage): Promise<{ rows: CrossCertificateRow[]; total: number }> {
    const rows: CrossCertificateRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM ca_cross_certificates WHERE ca_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3`,
      [caId, page.per_page, page.offset],
    );
    const [{ total }] = await this.dataSource.query(
      'SELECT count(*)::int AS total FROM ca_cross_certificates WHERE ca_id = $1',
      [caId],
    );
    return { rows, total };
  }

  async find(
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<CrossCertificateRow | null> {
    const rows: CrossCertificateRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM ca_cross_certificates WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  async insert(manager: EntityManager, row: NewCrossCertificateRow): Promise<void> {
    await manager.query(
      `INSERT INTO ca_cross_certificates (id, ca_id, parent_id, issuer, serial_hex, fingerprint_sha256,
         certificate_pem, not_before, not_after)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        row.id,
        row.ca_id,
        row.parent_id,
        row.issuer,
        row.serial_hex,
        row.fingerprint_sha256,
        row.certificate_pem,
        row.not_before,
        row.not_after,
      ],
    );
  }

  async retire(manager: EntityManager, id: string): Promise<void> {
    await manager.query('UPDATE ca_cross_certificates SET retired_at = now() WHERE id = $1', [id]);
  }

  /** Revoked (ADR 0075): also out of alternate chains from now on, as when retired. */
  async markRevoked(
    manager: EntityManager,
    id: string,
    reason: RevocationReason,
    revokedAt: Date,
  ): Promise<void> {
    await manager.query(
      `UPDATE ca_cross_certificates SET revoked_at = $3, revocation_reason = $2,
         retired_at = COALESCE(retired_at, $3) WHERE id = $1`,
      [id, reason, revokedAt],
    );
  }

  /** Whether `id` is `ancestorId` itself or one of the CAs below it (a cross-signing loop). */
  async isSelfOrDescendant(manager: EntityManager, ancestorId: string, id: string): Promise<boolean> {
    const rows = await manager.query(
      `WITH RECURSIVE below (id, depth) AS (
         SELECT $1::text, 0
         UNION ALL
         SELECT c.id, below.depth + 1 FROM ca_certificates c JOIN below ON c.parent_id = below.id
          WHERE below.depth < 10)
       SELECT 1 FROM below WHERE id = $2 LIMIT 1`,
      [ancestorId, id],
    );
    return rows.length > 0;
  }
}
