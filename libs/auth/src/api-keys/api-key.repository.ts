import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiKeyDto, CertlaneError, ErrorCode, Page, ResolvedPage } from '@certlane/contracts';
import { isUniqueViolation, PreparedQuery } from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';

interface ApiKeyRow {
  id: string;
  name: string;
  actor_id: string;
  tenant: string;
  admin: boolean;
  created_by: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
}

export interface NewApiKey {
  id: string;
  name: string;
  keyHash: string;
  actorId: string;
  admin: boolean;
  createdBy: string;
  expiresAt: string | null;
}

const COLUMNS = 'id, name, actor_id, tenant, admin, created_by, created_at, expires_at, last_used_at';

/** A key of a deactivated user authenticates as nothing (docs/decisions/0018). */
const FIND_BY_HASH = new PreparedQuery<ApiKeyRow>(
  'auth_api_key_by_active_hash',
  `SELECT k.id, k.name, k.actor_id, k.tenant, k.admin, k.created_by, k.created_at, k.expires_at, k.last_used_at
     FROM api_keys k LEFT JOIN users u ON u.id = k.actor_id
    WHERE k.key_hash = $1 AND COALESCE(u.active, true)`,
);

export function toApiKeyDto(row: ApiKeyRow): ApiKeyDto {
  return {
    id: row.id,
    name: row.name,
    actor_id: row.actor_id,
    tenant: row.tenant,
    admin: row.admin,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}

/** Storage of API keys and role grants in the auth schema. Key values never reach this class. */
@Injectable()
export class ApiKeyRepository {
  constructor(@InjectDataSource('auth') private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async findByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
    return (await FIND_BY_HASH.rows(this.dataSource, [keyHash]))[0];
  }

  /** Records use at most once a minute per key, so authentication does not write on every request. */
  async touch(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [id],
    );
  }

  async list(page: ResolvedPage): Promise<Page<ApiKeyDto>> {
    const rows: ApiKeyRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id LIMIT $1 OFFSET $2`,
      [page.per_page, page.offset],
    );
    const [{ total }] = await this.dataSource.query('SELECT count(*)::int AS total FROM api_keys');
    return { data: rows.map(toApiKeyDto), total, page: page.page, per_page: page.per_page };
  }

  async find(manager: EntityManager, id: string): Promise<ApiKeyRow | undefined> {
    const rows: ApiKeyRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0];
  }

  async insert(manager: EntityManager, key: NewApiKey): Promise<ApiKeyRow> {
    try {
      const rows: ApiKeyRow[] = await manager.query(
        `INSERT INTO api_keys (id, name, key_hash, actor_id, admin, created_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
        [key.id, key.name, key.keyHash, key.actorId, key.admin, key.createdBy, key.expiresAt],
      );
      return rows[0];
    } catch (error) {
      if (isUniqueViolation(error, ['api_keys_name_key'])) {
        throw new CertlaneError(
          ErrorCode.ApiKeyNameTaken,
          `an API key named ${JSON.stringify(key.name)} already exists`,
        );
      }
      throw error;
    }
  }

  async replaceHash(manager: EntityManager, id: string, keyHash: string): Promise<ApiKeyRow> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [rows]: [ApiKeyRow[], number] = await manager.query(
      `UPDATE api_keys SET key_hash = $2, last_used_at = NULL WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, keyHash],
    );
    return rows[0];
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.query('DELETE FROM api_keys WHERE id = $1', [id]);
  }

  /** Deletes the keys of an actor, and with `orCreatedBy` also the keys it created; returns them. */
  async deleteOfActor(
    manager: EntityManager,
    actorId: string,
    orCreatedBy = false,
  ): Promise<{ id: string; actor_id: string }[]> {
    const [rows]: [{ id: string; actor_id: string }[], number] = await manager.query(
      'DELETE FROM api_keys WHERE actor_id = $1 OR ($2 AND created_by = $1) RETURNING id, actor_id',
      [actorId, orCreatedBy],
    );
    return rows;
  }

  async grant(manager: EntityManager, actorId: string, roleId: string, grantedBy: string): Promise<void> {
    await manager.query(
      'INSERT INTO actor_roles (actor_id, role_id, granted_by) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [actorId, roleId, grantedBy],
    );
  }

  async adminExists(manager: EntityManager): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM actor_roles WHERE role_id = 'r-admin' UNION ALL SELECT 1 FROM api_keys WHERE admin LIMIT 1`,
    );
    return rows.length > 0;
  }
}
