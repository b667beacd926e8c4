import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { BreakGlassCredentialDto, Page, ResolvedPage } from '@certlane/contracts';
import { DataSource, EntityManager } from 'typeorm';

export interface CredentialRow {
  actor_id: string;
  password_hash: string;
  failed_attempts: number;
  locked: boolean;
  created_at: Date;
  updated_at: Date;
  last_login_at: Date | null;
}

const COLUMNS = 'actor_id, password_hash, failed_attempts, locked, created_at, updated_at, last_login_at';

/** The API view of a credential: everything but the hash (spec 2.15). */
export function toCredentialDto(row: CredentialRow): BreakGlassCredentialDto {
  return {
    actor_id: row.actor_id,
    locked: row.locked,
    failed_attempts: row.failed_attempts,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_login_at: row.last_login_at?.toISOString() ?? null,
  };
}

/** Break-glass credentials and the login attempts of the shared rate limit, in the auth schema. */
@Injectable()
export class BreakGlassRepository {
  constructor(@InjectDataSource('auth') private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Serialises attempts from one IP across every replica (advisory lock for the transaction),
   * returns the earlier attempts of the window in epoch ms and the database clock.
   */
  async attemptsOf(
    manager: EntityManager,
    clientIp: string,
    windowSeconds: number,
  ): Promise<{ times: number[]; now: number }> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `certlane:auth:breakglass-ip:${clientIp}`,
    ]);
    const rows: { t: number | null; now: number }[] = await manager.query(
      `SELECT (extract(epoch FROM a.attempted_at) * 1000)::float8 AS t, (extract(epoch FROM c.now) * 1000)::float8 AS now
         FROM (SELECT clock_timestamp() AS now) c
         LEFT JOIN breakglass_login_attempts a
           ON a.client_ip = $1 AND a.attempted_at > c.now - make_interval(secs => $2)`,
      [clientIp, windowSeconds],
    );
    return { times: rows.flatMap((row) => (row.t === null ? [] : [row.t])), now: rows[0].now };
  }

  async recordAttempt(manager: EntityManager, clientIp: string, atMs: number): Promise<void> {
    await manager.query(
      'INSERT INTO breakglass_login_attempts (client_ip, attempted_at) VALUES ($1, to_timestamp($2 / 1000.0))',
      [clientIp, atMs],
    );
  }

  async deleteOldAttempts(): Promise<number> {
    const [, count]: [unknown, number] = await this.dataSource.query(
      "DELETE FROM breakglass_login_attempts WHERE attempted_at < now() - interval '10 minutes'",
    );
    return count;
  }

  async find(actorId: string): Promise<CredentialRow | undefined> {
    const rows: CredentialRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM breakglass_credentials WHERE actor_id = $1`,
      [actorId],
    );
    return rows[0];
  }

  async lock(manager: EntityManager, actorId: string): Promise<CredentialRow | undefined> {
    const rows: CredentialRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM breakglass_credentials WHERE actor_id = $1 FOR UPDATE`,
      [actorId],
    );
    return rows[0];
  }

  async list(page: ResolvedPage): Promise<Page<BreakGlassCredentialDto>> {
    const rows: CredentialRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM breakglass_credentials ORDER BY actor_id LIMIT $1 OFFSET $2`,
      [page.per_page, page.offset],
    );
    const [{ total }] = await this.dataSource.query(
      'SELECT count(*)::int AS total FROM breakglass_credentials',
    );
    return { data: rows.map(toCredentialDto), total, page: page.page, per_page: page.per_page };
  }

  async insert(manager: EntityManager, actorId: string, passwordHash: string): Promise<CredentialRow> {
    const rows: CredentialRow[] = await manager.query(
      `INSERT INTO breakglass_credentials (actor_id, password_hash) VALUES ($1, $2) RETURNING ${COLUMNS}`,
      [actorId, passwordHash],
    );
    return rows[0];
  }

  /** A new password: failures reset and the lock lifted. */
  async replaceHash(manager: EntityManager, actorId: string, passwordHash: string): Promise<CredentialRow> {
    return this.update(
      manager,
      actorId,
      'password_hash = $2, failed_attempts = 0, locked = false, updated_at = now()',
      [passwordHash],
    );
  }

  /** One more failure; locks the credential when the count reaches the threshold. */
  async recordFailure(manager: EntityManager, actorId: string, threshold: number): Promise<CredentialRow> {
    return this.update(
      manager,
      actorId,
      'failed_attempts = failed_attempts + 1, locked = locked OR failed_attempts + 1 >= $2, updated_at = now()',
      [threshold],
    );
  }

  async recordSuccess(manager: EntityManager, actorId: string): Promise<CredentialRow> {
    return this.update(manager, actorId, 'failed_attempts = 0, last_login_at = now()', []);
  }

  async unlock(manager: EntityManager, actorId: string): Promise<CredentialRow> {
    return this.update(manager, actorId, 'failed_attempts = 0, locked = false, updated_at = now()', []);
  }

  async delete(manager: EntityManager, actorId: string): Promise<number> {
    const [, count]: [unknown, number] = await manager.query(
      'DELETE FROM breakglass_credentials WHERE actor_id = $1',
      [actorId],
    );
    return count;
  }

  private async update(
    manager: EntityManager,
    actorId: string,
    assignments: string,
    parameters: unknown[],
  ): Promise<CredentialRow> {
    const [rows]: [CredentialRow[], number] = await manager.query(
      `UPDATE breakglass_credentials SET ${assignments} WHERE actor_id = $1 RETURNING ${COLUMNS}`,
      [actorId, ...parameters],
    );
    return rows[0];
  }
}
