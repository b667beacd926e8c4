import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Page, ResolvedPage, UserDto, UserKind } from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';

export interface UserRow {
  id: string;
  kind: UserKind;
  active: boolean;
  created_at: Date;
  deactivated_at: Date | null;
  last_login_at: Date | null;
}

const COLUMNS = 'id, kind, active, created_at, deactivated_at, last_login_at';

export function toUserDto(row: UserRow): UserDto {
  return {
    id: row.id,
    kind: row.kind,
    active: row.active,
    created_at: row.created_at.toISOString(),
    deactivated_at: row.deactivated_at?.toISOString() ?? null,
    last_login_at: row.last_login_at?.toISOString() ?? null,
  };
}

/** The users table of the auth schema: one row per actor, with its active flag. */
@Injectable()
export class UserRepository {
  constructor(@InjectDataSource('auth') private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Records that an actor exists; the first kind seen stays. */
  async ensure(manager: EntityManager, id: string, kind: UserKind): Promise<void> {
    await manager.query('INSERT INTO users (id, kind) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
      id,
      kind,
    ]);
  }

  async recordLogin(manager: EntityManager, id: string, kind: UserKind): Promise<void> {
    await manager.query(
      `INSERT INTO users (id, kind, last_login_at) VALUES ($1, $2, now())
       ON CONFLICT (id) DO UPDATE SET last_login_at = now()`,
      [id, kind],
    );
  }

  async isActive(manager: EntityManager, id: string): Promise<boolean> {
    const rows: { active: boolean }[] = await manager.query('SELECT active FROM users WHERE id = $1', [id]);
    return rows[0]?.active ?? true;
  }

  async list(page: ResolvedPage): Promise<Page<UserDto>> {
    const rows: UserRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM users ORDER BY id LIMIT $1 OFFSET $2`,
      [page.per_page, page.offset],
    );
    const [{ total }] = await this.dataSource.query('SELECT count(*)::int AS total FROM users');
    return { data: rows.map(toUserDto), total, page: page.page, per_page: page.per_page };
  }

  async find(manager: EntityManager, id: string): Promise<UserRow | undefined> {
    const rows: UserRow[] = await manager.query(`SELECT ${COLUMNS} FROM users WHERE id = $1 FOR UPDATE`, [
      id,
    ]);
    return rows[0];
  }

  async setActive(manager: EntityManager, id: string, active: boolean): Promise<UserRow> {
    const [rows]: [UserRow[], number] = await manager.query(
      `UPDATE users SET active = $2, deactivated_at = CASE WHEN $2 THEN NULL ELSE COALESCE(deactivated_at, now()) END
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, active],
    );
    return rows[0];
  }

  async delete(manager: EntityManager, id: string): Promise<number> {
    const [, count]: [unknown, number] = await manager.query('DELETE FROM users WHERE id = $1', [id]);
    return count;
  }

  /**
   * Whether an admin other than `id` can still act: an actor holding r-admin or a live admin key
   * whose user is active (an actor without a user row counts as active). Serialized with every
   * deactivation by an advisory lock, so two concurrent calls cannot remove the last two admins.
   */
  async anotherActiveAdmin(manager: EntityManager, id: string): Promise<boolean> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['certlane:auth:active-admins']);
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM (
         SELECT actor_id FROM actor_roles WHERE role_id = 'r-admin'
         UNION SELECT actor_id FROM api_keys WHERE admin AND (expires_at IS NULL OR expires_at > now())
       ) a LEFT JOIN users u ON u.id = a.actor_id
       WHERE a.actor_id <> $1 AND COALESCE(u.active, true) LIMIT 1`,
      [id],
    );
    return rows.length > 0;
  }

  /** Whether `id` is an admin: it holds r-admin or an admin key. */
  async isAdmin(manager: EntityManager, id: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM actor_roles WHERE actor_id = $1 AND role_id = 'r-admin'
       UNION ALL SELECT 1 FROM api_keys WHERE actor_id = $1 AND admin LIMIT 1`,
      [id],
    );
    return rows.length > 0;
  }
}
