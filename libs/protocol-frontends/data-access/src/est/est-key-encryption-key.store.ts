import { SqlExecutor } from '@certlane/platform';
import { rowsOf } from '../sql/rows';

export interface EstKeyEncryptionKeyRow {
  id: string;
  profile_id: string;
  key_sealed: string;
  description: string | null;
  created_by: string;
  created_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = 'id, profile_id, key_sealed, description, created_by, created_at, revoked_at';

/** Key-encryption keys of EST profiles (RFC 7030 4.4.1.1; ADR 0058 amendment: symmetric key-encryption keys). */
export class EstKeyEncryptionKeyStore {
  constructor(private readonly executor: SqlExecutor) {}

  async create(input: {
    id: string;
    profileId: string;
    keySealed: string;
    description: string | null;
    createdBy: string;
  }): Promise<EstKeyEncryptionKeyRow> {
    const rows = await rowsOf<EstKeyEncryptionKeyRow>(
      this.executor,
      `INSERT INTO est_key_encryption_keys (id, profile_id, key_sealed, description, created_by)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [input.id, input.profileId, input.keySealed, input.description, input.createdBy],
    );
    return rows[0];
  }

  async byId(id: string): Promise<EstKeyEncryptionKeyRow | null> {
    const rows = await rowsOf<EstKeyEncryptionKeyRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM est_key_encryption_keys WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** A page of keys, newest first, of one profile or all, active or revoked or both, with the total. */
  async list(filter: {
    offset: number;
    limit: number;
    profileId?: string;
    status?: 'active' | 'revoked';
  }): Promise<{ rows: EstKeyEncryptionKeyRow[]; total: number }> {
    const where = `WHERE ($1::uuid IS NULL OR profile_id = $1)
       AND ($2::text IS NULL OR (revoked_at IS NULL) = ($2 = 'active'))`;
    const params = [filter.profileId ?? null, filter.status ?? null];
    const [rows, counted] = await Promise.all([
      rowsOf<EstKeyEncryptionKeyRow>(
        this.executor,
        `SELECT ${COLUMNS} FROM est_key_encryption_keys ${where}
         ORDER BY created_at DESC, id LIMIT $3 OFFSET $4`,
        [...params, filter.limit, filter.offset],
      ),
      rowsOf<{ n: number }>(
        this.executor,
        `SELECT count(*)::int AS n FROM est_key_encryption_keys ${where}`,
        params,
      ),
    ]);
    return { rows, total: counted[0]?.n ?? 0 };
  }

  /** Revokes a key not yet revoked; the row stays, so its id keeps being refused. */
  async revoke(id: string): Promise<EstKeyEncryptionKeyRow | null> {
    const rows = await rowsOf<EstKeyEncryptionKeyRow>(
      this.executor,
      `UPDATE est_key_encryption_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL
       RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0] ?? null;
  }
}
