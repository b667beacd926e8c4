import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Page, ResolvedPage, SessionDto, SessionMethod } from '@certlane/contracts';
import { PreparedQuery } from '@certlane/platform';
import { DataSource, EntityManager } from 'typeorm';

export interface SessionRow {
  id: string;
  actor_id: string;
  method: SessionMethod;
  signing_key_id: string;
  csrf_token_hash: string;
  user_agent_hash: string;
  client_ip: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  /** The OIDC provider a session was opened through (read where logout needs it). */
  oidc_provider_id?: string | null;
}

export interface NewSession {
  id: string;
  actorId: string;
  method: SessionMethod;
  signingKeyId: string;
  csrfTokenHash: string;
  userAgentHash: string;
  clientIp: string;
  lifetimeSeconds: number;
  /** An OIDC session's provider, subject and the IdP's session id: what back-channel logout names. */
  oidc?: { providerId: string; subject: string; sid: string | null };
}

const COLUMNS =
  'id, actor_id, method, signing_key_id, csrf_token_hash, user_agent_hash, client_ip, created_at, last_seen_at, expires_at, revoked_at';

/** A session with the active flag of its user (true when the actor has no users row). */
const FIND_FOR_AUTH = new PreparedQuery<SessionRow & { user_active: boolean; now: Date }>(
  'auth_session_for_auth',
  `SELECT s.id, s.actor_id, s.method, s.signing_key_id, s.csrf_token_hash, s.user_agent_hash, s.client_ip,
          s.created_at, s.last_seen_at, s.expires_at, s.revoked_at, s.oidc_provider_id,
          COALESCE(u.active, true) AS user_active, now() AS now
     FROM sessions s LEFT JOIN users u ON u.id = s.actor_id
    WHERE s.id = $1`,
);

/** Active: not revoked, not expired, used within the idle timeout. */
const ACTIVE = `revoked_at IS NULL AND expires_at > now() AND last_seen_at > now() - make_interval(secs => $1)`;

function toDto(row: SessionRow, currentId?: string): SessionDto {
  return {
    id: row.id,
    actor_id: row.actor_id,
    method: row.method,
    client_ip: row.client_ip,
    created_at: row.created_at.toISOString(),
    last_seen_at: row.last_seen_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    current: row.id === currentId,
  };
}

/** Sessions in the auth schema. Cookie values and CSRF tokens never reach this class, only hashes. */
@Injectable()
export class SessionRepository {
  constructor(@InjectDataSource('auth') private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(manager: EntityManager, session: NewSession): Promise<SessionRow> {
    const rows: SessionRow[] = await manager.query(
      `INSERT INTO sessions (id, actor_id, method, signing_key_id, csrf_token_hash, user_agent_hash, client_ip,
                             expires_at, oidc_provider_id, oidc_subject, oidc_sid)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8), $9, $10, $11) RETURNING ${COLUMNS}`,
      [
        session.id,
        session.actorId,
        session.method,
        session.signingKeyId,
        session.csrfTokenHash,
        session.userAgentHash,
        session.clientIp,
        session.lifetimeSeconds,
        session.oidc?.providerId ?? null,
        session.oidc?.subject ?? null,
        session.oidc?.sid ?? null,
      ],
    );
    return rows[0];
  }

  async findForAuth(id: string): Promise<(SessionRow & { user_active: boolean; now: Date }) | undefined> {
    return (await FIND_FOR_AUTH.rows(this.dataSource, [id]))[0];
  }

  /**
   * Records use at most once every `minGapSeconds` per session, so authentication does not write
   * every time.
   */
  async touch(id: string, minGapSeconds: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE sessions SET last_seen_at = now()
        WHERE id = $1 AND last_seen_at < now() - make_interval(secs => $2)`,
      [id, minGapSeconds],
    );
  }

  async list(
    page: ResolvedPage,
    idleSeconds: number,
    actorId: string | null,
    currentId?: string,
  ): Promise<Page<SessionDto>> {
    const where = `${ACTIVE} AND ($2::text IS NULL OR actor_id = $2)`;
    const rows: SessionRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM sessions WHERE ${where} ORDER BY created_at DESC, id LIMIT $3 OFFSET $4`,
      [idleSeconds, actorId, page.per_page, page.offset],
    );
    const [{ total }] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM sessions WHERE ${where}`,
      [idleSeconds, actorId],
    );
    return {
      data: rows.map((row) => toDto(row, currentId)),
      total,
      page: page.page,
      per_page: page.per_page,
    };
  }

  /** An active session, locked for the transaction. */
  async findActive(manager: EntityManager, id: string, idleSeconds: number): Promise<SessionRow | undefined> {
    const rows: SessionRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM sessions WHERE id = $2 AND ${ACTIVE} FOR UPDATE`,
      [idleSeconds, id],
    );
    return rows[0];
  }

  async revoke(manager: EntityManager, id: string): Promise<void> {
    await manager.query('UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]);
  }

  /**
   * Revokes the unrevoked sessions opened through an OIDC provider: of one subject or one IdP
   * session id (a back-channel logout), or all of them (the provider disabled). Returns their
   * ids and actors.
   */
  async revokeOidc(
    manager: EntityManager,
    providerId: string,
    by: { subject: string } | { sid: string } | 'all',
  ): Promise<{ id: string; actor_id: string }[]> {
    const [column, value] =
      by === 'all' ? ['NULL', null] : 'sid' in by ? ['oidc_sid', by.sid] : ['oidc_subject', by.subject];
    const [rows]: [{ id: string; actor_id: string }[], number] = await manager.query(
      `UPDATE sessions SET revoked_at = now()
        WHERE oidc_provider_id = $1 AND ($2::text IS NULL OR ${column} = $2) AND revoked_at IS NULL
        RETURNING id, actor_id`,
      [providerId, value],
    );
    return rows;
  }

  /** Revokes every unrevoked session of an actor (except one, or of one method only); returns their ids. */
  async revokeAllOf(
    manager: EntityManager,
    actorId: string,
    options: { exceptId?: string; method?: SessionMethod } = {},
  ): Promise<string[]> {
    const [rows]: [{ id: string }[], number] = await manager.query(
      `UPDATE sessions SET revoked_at = now()
        WHERE actor_id = $1 AND revoked_at IS NULL AND expires_at > now()
          AND ($2::text IS NULL OR id <> $2) AND ($3::text IS NULL OR method = $3)
        RETURNING id`,
      [actorId, options.exceptId ?? null, options.method ?? null],
    );
    return rows.map((row) => row.id);
  }

  /** Deletes every session of an actor (demo-residual cleanup); returns the ids deleted. */
  async deleteAllOf(manager: EntityManager, actorId: string): Promise<string[]> {
    const [rows]: [{ id: string }[], number] = await manager.query(
      'DELETE FROM sessions WHERE actor_id = $1 RETURNING id',
      [actorId],
    );
    return rows.map((row) => row.id);
  }

  /** The GC: deletes sessions that can never authenticate again. */
  async deleteDead(idleSeconds: number): Promise<number> {
    const [, count]: [unknown, number] = await this.dataSource.query(
      `DELETE FROM sessions WHERE revoked_at IS NOT NULL OR expires_at <= now()
          OR last_seen_at <= now() - make_interval(secs => $1)`,
      [idleSeconds],
    );
    return count;
  }
}
