import { SqlExecutor } from '@certlane/platform';
import { rowsOf } from '../sql/rows';

export interface AcmeEabKeyRow {
  id: string;
  hmac_sealed: string;
  description: string | null;
  owner: string | null;
  team: string | null;
  profile_id: string | null;
  created_by: string;
  created_at: Date;
  bound_account_id: string | null;
  bound_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS =
  'id, hmac_sealed, description, owner, team, profile_id, created_by, created_at, bound_account_id, bound_at, revoked_at';

/** External account binding keys (RFC 8555 7.3.4; ADR 0060): each binds one account at most. */
export class EabKeyStore {
  constructor(private readonly executor: SqlExecutor) {}

  async create(input: {
    id: string;
    hmacSealed: string;
    description: string | null;
    owner: string | null;
    team: string | null;
    profileId: string | null;
    createdBy: string;
  }): Promise<AcmeEabKeyRow> {
    const rows = await rowsOf<AcmeEabKeyRow>(
      this.executor,
      `INSERT INTO acme_eab_keys (id, hmac_sealed, description, owner, team, profile_id, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [
        input.id,
        input.hmacSealed,
        input.description,
        input.owner,
        input.team,
        input.profileId,
        input.createdBy,
      ],
    );
    return rows[0];
  }

  async byId(id: string): Promise<AcmeEabKeyRow | null> {
    const rows = await rowsOf<AcmeEabKeyRow>(
      this.executor,
      `SELECT ${COLUMNS} FROM acme_eab_keys WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** A page of keys, newest first, with the total. */
  async list(page: { offset: number; limit: number }): Promise<{ rows: AcmeEabKeyRow[]; total: number }> {
    const [rows, counted] = await Promise.all([
      rowsOf<AcmeEabKeyRow>(
        this.executor,
        `SELECT ${COLUMNS} FROM acme_eab_keys ORDER BY created_at DESC, id LIMIT $1 OFFSET $2`,
        [page.limit, page.offset],
      ),
      rowsOf<{ n: number }>(this.executor, 'SELECT count(*)::int AS n FROM acme_eab_keys'),
    ]);
    return { rows, total: counted[0]?.n ?? 0 };
  }

  /**
   * Binds an unused, unrevoked key to an account: true for the one newAccount that wins it (a
   * compare-and-set, so two replicas cannot bind one key to two accounts).
   */
  async bind(id: string, accountId: string): Promise<boolean> {
    const rows = await rowsOf<{ id: string }>(
      this.executor,
      `UPDATE acme_eab_keys SET bound_account_id = $2, bound_at = now()
       WHERE id = $1 AND bound_account_id IS NULL AND revoked_at IS NULL RETURNING id`,
      [id, accountId],
    );
    return rows.length === 1;
  }

  /** Revokes a key not yet revoked; the row (and its record of binding) stays. */
  async revoke(id: string): Promise<AcmeEabKeyRow | null> {
    const rows = await rowsOf<AcmeEabKeyRow>(
      this.executor,
      `UPDATE acme_eab_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0] ?? null;
  }
}
