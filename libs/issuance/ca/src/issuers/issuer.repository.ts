import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { CertlaneError, ErrorCode, IssuerType, ResolvedPage } from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';
import { isUniqueViolation } from '@certlane/platform';

export interface IssuerRow {
  id: string;
  name: string;
  kind: IssuerType;
  config_sealed: string;
  config_public: Record<string, unknown>;
  issuing_ca_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, name, kind, config_sealed, config_public, issuing_ca_id, created_at, updated_at';

/** Storage of issuers in the issuance schema (raw SQL). */
@Injectable()
export class IssuerRepository {
  constructor(@InjectDataSource('issuance') readonly dataSource: DataSource) {}

  async list(page: ResolvedPage): Promise<{ rows: IssuerRow[]; total: number }> {
    const rows: IssuerRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM issuers ORDER BY id LIMIT $1 OFFSET $2`,
      [page.per_page, page.offset],
    );
    const [{ total }] = await this.dataSource.query('SELECT count(*)::int AS total FROM issuers');
    return { rows, total };
  }

  async find(
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<IssuerRow | null> {
    const rows: IssuerRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM issuers WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Ids taken by `baseId` and its suffixed forms, under one transaction lock (as renewal policies). */
  async idsWithPrefix(manager: EntityManager, baseId: string): Promise<Set<string>> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['certlane:issuance:issuer-ids']);
    const rows: { id: string }[] = await manager.query(`SELECT id FROM issuers WHERE id = $1 OR id LIKE $2`, [
      baseId,
      `${baseId.replace(/[\\%_]/g, '\\$&')}-%`,
    ]);
    return new Set(rows.map((row) => row.id));
  }

  async insert(
    manager: EntityManager,
    row: Pick<IssuerRow, 'id' | 'name' | 'kind' | 'config_sealed' | 'config_public'>,
  ): Promise<IssuerRow> {
    try {
      const rows: IssuerRow[] = await manager.query(
        `INSERT INTO issuers (id, name, kind, config_sealed, config_public) VALUES ($1, $2, $3, $4, $5)
         RETURNING ${COLUMNS}`,
        [row.id, row.name, row.kind, row.config_sealed, JSON.stringify(row.config_public)],
      );
      return rows[0];
    } catch (error) {
      throw translateUniqueViolation(error, row.name);
    }
  }

  async update(
    manager: EntityManager,
    id: string,
    fields: Pick<IssuerRow, 'name' | 'config_sealed' | 'config_public'>,
  ): Promise<IssuerRow> {
    try {
      const [rows] = (await manager.query(
        `UPDATE issuers SET name = $2, config_sealed = $3, config_public = $4, updated_at = now()
         WHERE id = $1 RETURNING ${COLUMNS}`,
        [id, fields.name, fields.config_sealed, JSON.stringify(fields.config_public)],
      )) as [IssuerRow[], number];
      return rows[0];
    } catch (error) {
      throw translateUniqueViolation(error, fields.name);
    }
  }

  async setIssuingCa(manager: EntityManager, id: string, caId: string): Promise<void> {
    await manager.query('UPDATE issuers SET issuing_ca_id = $2, updated_at = now() WHERE id = $1', [
      id,
      caId,
    ]);
  }

  /**
   * Counts what keeps an issuer from being deleted: issued certificates (its CAs' own certificates,
   * recorded among them since ADR 0075, count as CAs) and CA certificates.
   */
  async usage(manager: EntityManager, id: string): Promise<{ certificates: number; cas: number }> {
    const [row] = await manager.query(
      `SELECT (SELECT count(*)::int FROM issued_certificates WHERE issuer_id = $1 AND purpose <> 'ca') AS certificates,
              (SELECT count(*)::int FROM ca_certificates WHERE issuer_id = $1) AS cas`,
      [id],
    );
    return row;
  }

  async delete(manager: EntityManager, id: string): Promise<boolean> {
    const [, count] = (await manager.query('DELETE FROM issuers WHERE id = $1', [id])) as [unknown, number];
    return count > 0;
  }
}

function translateUniqueViolation(error: unknown, name: string): unknown {
  if (isUniqueViolation(error, ['issuers_name_key'])) {
    return new CertlaneError(
      ErrorCode.IssuerDuplicateName,
      `an issuer named ${JSON.stringify(name)} already exists`,
    );
  }
  return error;
}
