import { Inject, Injectable } from '@nestjs/common';
import {
  AuthenticateSessionRequest,
  AuthenticateSessionResponse,
  CertlaneError,
  ErrorCode,
  ListSessionsCommand,
  LoggedOut,
  LogoutCommand,
  Page,
  PERMISSIONS,
  Principal,
  resolvePage,
  RevokeOtherSessionsCommand,
  RevokeSessionCommand,
  SESSION_LIFETIME_SECONDS,
  SessionDto,
  SessionMethod,
  SessionRevoked,
  SessionsRevoked,
} from '@certlane/contracts';
import { CERTLANE_CONFIG, CertlaneConfig, outboxToken, ServiceOutbox } from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { authAudit } from '../audit/auth-audit';
import { RoleRepository } from '../roles/role.repository';
import { UserRepository } from '../users/user.repository';
import { csrfMatches, newCsrfToken, newSessionId, SessionKeyring, sha256Hex } from './session-cookie';
import { SessionRepository, SessionRow } from './session.repository';

export interface OpenedSession {
  sessionId: string;
  cookie: string;
  csrfToken: string;
  expiresAt: string;
}

/**
 * How often a session's `last_seen_at` is written at most: once a minute, or a quarter of the
 * idle timeout when that is shorter. A gap as long as the timeout itself (1m) would never write
 * while the session is valid, so every session would end a timeout after its login, used or not.
 */
export function touchGapSeconds(idleTimeoutMs: number): number {
  return Math.min(60, idleTimeoutMs / 4000);
}

const invalidSession = () => new CertlaneError(ErrorCode.Unauthenticated, 'the session is not valid');
const sessionNotFound = (id: string) =>
  new CertlaneError(ErrorCode.SessionNotFound, `session ${JSON.stringify(id)} not found`);

/**
 * Browser sessions (spec 5.4; docs/decisions/0017-sessions-and-csrf.md): opened by a login
 * (break-glass now, OIDC later), authenticated for the gateway, listed and revoked. Every
 * revocation writes `auth.v1.session.revoked` so gateways drop the session from their caches.
 */
@Injectable()
export class SessionService {
  private readonly keyring: SessionKeyring;
  private readonly idleSeconds: number;
  private readonly touchGapSeconds: number;

  constructor(
    private readonly sessions: SessionRepository,
    private readonly users: UserRepository,
    private readonly roles: RoleRepository,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(outboxToken('auth')) private readonly outbox: ServiceOutbox,
  ) {
    this.keyring = new SessionKeyring(config.session.secrets);
    this.idleSeconds = config.session.idleTimeoutMs / 1000;
    this.touchGapSeconds = touchGapSeconds(config.session.idleTimeoutMs);
  }

  /** Opens a session inside the caller's transaction (the login that justifies it). */
  async open(
    manager: EntityManager,
    login: {
      actorId: string;
      method: SessionMethod;
      clientIp: string;
      userAgent?: string;
      oidc?: { providerId: string; subject: string; sid: string | null };
    },
  ): Promise<OpenedSession> {
    const sessionId = newSessionId();
    const csrfToken = newCsrfToken();
    const row = await this.sessions.insert(manager, {
      id: sessionId,
      actorId: login.actorId,
      method: login.method,
      signingKeyId: this.keyring.currentKid,
      csrfTokenHash: sha256Hex(csrfToken),
      userAgentHash: sha256Hex(login.userAgent ?? ''),
      clientIp: login.clientIp,
      lifetimeSeconds: SESSION_LIFETIME_SECONDS,
      oidc: login.oidc,
    });
    await this.users.recordLogin(
      manager,
      login.actorId,
      login.method === 'breakglass' ? 'breakglass' : 'oidc',
    );
    return {
      sessionId,
      cookie: this.keyring.sign(sessionId),
      csrfToken,
      expiresAt: row.expires_at.toISOString(),
    };
  }

  /**
   * Who a cookie belongs to, or `session: null` for anything not valid right now. The session
   * counts as used (`last_seen_at`, which the idle timeout reads) unless the request is marked
   * `background`: a client's poll is checked like any request but does not keep it alive.
   */
  async authenticate(request: AuthenticateSessionRequest): Promise<AuthenticateSessionResponse> {
    const row = await this.validSession(request);
    if (!row) return { session: null };
    if (request.background !== true) {
      void this.sessions.touch(row.id, this.touchGapSeconds).catch(() => undefined);
    }
    return {
      session: {
        principal: await this.principalOf(row),
        session_id: row.id,
        csrf_token_hash: row.csrf_token_hash,
        expires_at: row.expires_at.toISOString(),
      },
    };
  }

  /** POST /auth/logout: the cookie itself is the credential; the CSRF token must be echoed. */
  /** Also answers the OIDC provider the session came through, for RP-initiated logout. */
  async logout(
    command: LogoutCommand,
    requestId?: string,
  ): Promise<LoggedOut & { oidc_provider_id: string | null }> {
    const row = await this.validSession(command);
    if (!row) throw invalidSession();
    if (!csrfMatches(command.csrf_token, row.csrf_token_hash)) {
      throw new CertlaneError(ErrorCode.CsrfTokenInvalid, 'the X-CSRF-Token header is missing or wrong');
    }
    const caller = { actorId: row.actor_id, requestId };
    await this.sessions.transaction(async (manager) => {
      await this.sessions.revoke(manager, row.id);
      await this.revoked(manager, [row.id], row.actor_id);
      await this.outbox.audit(manager, authAudit('auth.logout', caller, { type: 'session', id: row.id }));
    });
    this.outbox.committed();
    return { session_id: row.id, actor_id: row.actor_id, oidc_provider_id: row.oidc_provider_id ?? null };
  }

  list(command: ListSessionsCommand): Promise<Page<SessionDto>> {
    return this.sessions.list(
      resolvePage(command),
      this.idleSeconds,
      command.all ? null : command.actor_id,
      command.current_session_id,
    );
  }

  /** Own sessions may always be revoked; another actor's needs auth.session.revoke. */
  async revoke(command: RevokeSessionCommand, requestId?: string): Promise<SessionRevoked> {
    const caller = { actorId: command.actor_id, requestId };
    const revoked = await this.sessions.transaction(async (manager) => {
      const row = await this.sessions.findActive(manager, command.id, this.idleSeconds);
      if (!row) throw sessionNotFound(command.id);
      if (row.actor_id !== command.actor_id && !command.may_revoke_others) {
        throw new CertlaneError(
          ErrorCode.Forbidden,
          "revoking another actor's session needs the permission auth.session.revoke",
          { permission: 'auth.session.revoke' },
        );
      }
      await this.sessions.revoke(manager, row.id);
      await this.revoked(manager, [row.id], row.actor_id);
      await this.outbox.audit(
        manager,
        authAudit('auth.session_revoked', caller, { type: 'session', id: row.id }, 'success', {
          session_actor_id: row.actor_id,
        }),
      );
      return { id: row.id, actor_id: row.actor_id };
    });
    this.outbox.committed();
    return revoked;
  }

  /** DELETE /api/v1/auth/sessions: every session of the caller but the one it came with. */
  async revokeOthers(command: RevokeOtherSessionsCommand, requestId?: string): Promise<SessionsRevoked> {
    const caller = { actorId: command.actor_id, requestId };
    const ids = await this.sessions.transaction(async (manager) => {
      const revokedIds = await this.sessions.revokeAllOf(manager, command.actor_id, {
        exceptId: command.keep_session_id,
      });
      await this.revoked(manager, revokedIds, command.actor_id);
      await this.outbox.audit(
        manager,
        authAudit('auth.session_revoked', caller, { type: 'actor', id: command.actor_id }, 'success', {
          scope: 'all_but_current',
          revoked: revokedIds.length,
        }),
      );
      return revokedIds;
    });
    this.outbox.committed();
    return { revoked: ids.length };
  }

  /**
   * Revokes every session of an actor inside the caller's transaction, with their events; the
   * caller records the one audit event of its operation.
   */
  async revokeAllOf(manager: EntityManager, actorId: string, method?: SessionMethod): Promise<number> {
    const ids = await this.sessions.revokeAllOf(manager, actorId, { method });
    await this.revoked(manager, ids, actorId);
    return ids.length;
  }

  /** Revokes OIDC sessions (a back-channel logout, a provider disabled), with their events. */
  async revokeOidc(
    manager: EntityManager,
    providerId: string,
    by: { subject: string } | { sid: string } | 'all',
  ): Promise<number> {
    const rows = await this.sessions.revokeOidc(manager, providerId, by);
    for (const row of rows) await this.revoked(manager, [row.id], row.actor_id);
    return rows.length;
  }

  /** Deletes every session of an actor (demo-residual cleanup), with their revocation events. */
  async deleteAllOf(manager: EntityManager, actorId: string): Promise<number> {
    const ids = await this.sessions.deleteAllOf(manager, actorId);
    await this.revoked(manager, ids, actorId);
    return ids.length;
  }

  /** Deletes sessions that can never authenticate again (the GC loop). */
  collectGarbage(): Promise<number> {
    return this.sessions.deleteDead(this.idleSeconds);
  }

  private async revoked(manager: EntityManager, ids: string[], actorId: string): Promise<void> {
    for (const id of ids)
      await this.outbox.add(manager, 'auth.v1.session.revoked', { id, actor_id: actorId });
  }

  private async validSession(request: AuthenticateSessionRequest): Promise<SessionRow | undefined> {
    const verified = this.keyring.verify(request.cookie);
    if (!verified) return undefined;
    const row = await this.sessions.findForAuth(verified.sessionId);
    if (!row || row.signing_key_id !== verified.kid || row.revoked_at || !row.user_active) return undefined;
    const now = row.now.getTime();
    if (row.expires_at.getTime() <= now) return undefined;
    if (row.last_seen_at.getTime() <= now - this.config.session.idleTimeoutMs) return undefined;
    if (this.config.session.bindUserAgent && sha256Hex(request.user_agent ?? '') !== row.user_agent_hash) {
      return undefined;
    }
    return row;
  }

  /**
   * A break-glass session is the emergency door: it acts as an admin (ADR 0018). An OIDC session
   * is an admin when its actor holds r-admin (through a group mapping or a grant).
   */
  private async principalOf(row: SessionRow): Promise<Principal> {
    const grants = await this.roles.grantsOf(row.actor_id);
    const admin = row.method === 'breakglass' || grants.roleIds.includes('r-admin');
    return {
      actor_id: row.actor_id,
      actor_type: 'session',
      session_id: row.id,
      admin,
      role_ids: admin ? [...new Set(['r-admin', ...grants.roleIds])].sort() : grants.roleIds,
      permissions: admin ? [...PERMISSIONS] : grants.permissions,
      scoped_permissions: admin ? {} : grants.scopedPermissions,
    };
  }
}
