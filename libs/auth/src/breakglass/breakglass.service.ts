import { Inject, Injectable } from '@nestjs/common';
import {
  BREAKGLASS_RATE_LIMIT,
  BreakGlassCredentialDto,
  BreakGlassCredentialSet,
  BreakGlassLoginCommand,
  BreakGlassLoginResult,
  CertlaneError,
  ErrorCode,
  ListBreakGlassCredentialsRequest,
  Page,
  resolvePage,
  SessionsRevoked,
  SetBreakGlassCredentialRequest,
} from '@certlane/contracts';
import { CERTLANE_CONFIG, CertlaneConfig, outboxToken, ServiceOutbox } from '@certlane/platform';
import { randomBytes } from 'node:crypto';
import { authAudit, AuthCaller } from '../audit/auth-audit';
import { SessionService } from '../sessions/session.service';
import { UserRepository } from '../users/user.repository';
import { BreakGlassRepository, toCredentialDto } from './breakglass.repository';
import { hashPassword, verifyPassword } from './password-hash';
import { decideAttempt } from './rate-limit-window';

const RESOURCE = 'breakglass_credential';
const notFound = (actorId: string) =>
  new CertlaneError(
    ErrorCode.BreakGlassCredentialNotFound,
    `no break-glass credential for ${JSON.stringify(actorId)}`,
  );
const loginRefused = () =>
  new CertlaneError(ErrorCode.Unauthenticated, 'the break-glass actor id or password is wrong');

/**
 * Break-glass password login and its administration (spec 5.7; docs/decisions/0018). Logins are
 * rate-limited per client IP with state in the database (so every gateway replica shares it),
 * failures lock a credential at SERVICE_BREAKGLASS_LOCKOUT_THRESHOLD, and a success opens an
 * admin session. An unknown actor and a wrong password give the same 401 after the same scrypt
 * work.
 */
@Injectable()
export class BreakGlassService {
  private dummyHash?: Promise<string>;

  constructor(
    private readonly repository: BreakGlassRepository,
    private readonly users: UserRepository,
    private readonly sessions: SessionService,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(outboxToken('auth')) private readonly outbox: ServiceOutbox,
  ) {
    if (config.breakGlass.enabled) void this.dummy();
  }

  async login(command: BreakGlassLoginCommand, requestId?: string): Promise<BreakGlassLoginResult> {
    this.assertEnabled();
    await this.admitAttempt(command.client_ip);
    const stored = await this.repository.find(command.actor_id);
    const matches = await verifyPassword(command.password, stored?.password_hash ?? (await this.dummy()));
    const caller: AuthCaller = { actorId: command.actor_id, requestId };
    const resource = { type: RESOURCE, id: command.actor_id };
    const failed = (reason: string, details: Record<string, unknown> = {}) =>
      authAudit('auth.breakglass_login_failed', caller, resource, 'failure', {
        reason,
        client_ip: command.client_ip,
        ...details,
      });

    const outcome = await this.repository.transaction(async (manager) => {
      const current = await this.repository.lock(manager, command.actor_id);
      if (!current) {
        await this.outbox.audit(manager, failed('unknown_actor'));
        return loginRefused();
      }
      if (current.locked) {
        await this.outbox.audit(manager, failed('locked'));
        return new CertlaneError(
          ErrorCode.BreakGlassLocked,
          'this break-glass credential is locked after repeated failures; an admin must unlock it',
        );
      }
      // A password rotated while scrypt ran is checked against the hash that was verified.
      if (!matches || current.password_hash !== stored?.password_hash) {
        const after = await this.repository.recordFailure(
          manager,
          command.actor_id,
          this.config.breakGlass.lockoutThreshold,
        );
        await this.outbox.audit(
          manager,
          after.locked
            ? authAudit('auth.breakglass_locked', caller, resource, 'failure', {
                failed_attempts: after.failed_attempts,
                client_ip: command.client_ip,
              })
            : failed('wrong_password', { failed_attempts: after.failed_attempts }),
        );
        return loginRefused();
      }
      if (!(await this.users.isActive(manager, command.actor_id))) {
        await this.outbox.audit(manager, failed('deactivated'));
        return loginRefused();
      }
      await this.repository.recordSuccess(manager, command.actor_id);
      const session = await this.sessions.open(manager, {
        actorId: command.actor_id,
        method: 'breakglass',
        clientIp: command.client_ip,
        userAgent: command.user_agent,
      });
      await this.outbox.audit(
        manager,
        authAudit('auth.breakglass_login_succeeded', caller, resource, 'success', {
          session_id: session.sessionId,
          client_ip: command.client_ip,
        }),
      );
      return {
        actor_id: command.actor_id,
        session_id: session.sessionId,
        expires_at: session.expiresAt,
        csrf_token: session.csrfToken,
        session_cookie: session.cookie,
      } satisfies BreakGlassLoginResult;
    });
    this.outbox.committed();
    if (outcome instanceof CertlaneError) throw outcome;
    return outcome;
  }

  list(request: ListBreakGlassCredentialsRequest): Promise<Page<BreakGlassCredentialDto>> {
    return this.repository.list(resolvePage(request));
  }

  /** Sets a new credential (created) or rotates its password (failures reset, lock lifted). */
  async set(request: SetBreakGlassCredentialRequest, caller: AuthCaller): Promise<BreakGlassCredentialSet> {
    const passwordHash = await hashPassword(request.password);
    const result = await this.repository.transaction(async (manager) => {
      const existing = await this.repository.lock(manager, request.actor_id);
      const row = existing
        ? await this.repository.replaceHash(manager, request.actor_id, passwordHash)
        : await this.repository.insert(manager, request.actor_id, passwordHash);
      await this.users.ensure(manager, request.actor_id, 'breakglass');
      await this.outbox.audit(
        manager,
        authAudit(
          'auth.breakglass_credential_set',
          caller,
          { type: RESOURCE, id: request.actor_id },
          'success',
          {
            rotated: !!existing,
          },
        ),
      );
      return { credential: toCredentialDto(row), created: !existing };
    });
    this.outbox.committed();
    return result;
  }

  /** Deletes a credential and ends the break-glass sessions it opened. */
  async delete(actorId: string, caller: AuthCaller): Promise<SessionsRevoked> {
    const revoked = await this.repository.transaction(async (manager) => {
      if (!(await this.repository.lock(manager, actorId))) throw notFound(actorId);
      await this.repository.delete(manager, actorId);
      const sessions = await this.sessions.revokeAllOf(manager, actorId, 'breakglass');
      await this.outbox.audit(
        manager,
        authAudit('auth.breakglass_credential_deleted', caller, { type: RESOURCE, id: actorId }, 'success', {
          sessions_revoked: sessions,
        }),
      );
      return sessions;
    });
    this.outbox.committed();
    return { revoked };
  }

  async unlock(actorId: string, caller: AuthCaller): Promise<BreakGlassCredentialDto> {
    const row = await this.repository.transaction(async (manager) => {
      const current = await this.repository.lock(manager, actorId);
      if (!current) throw notFound(actorId);
      const unlocked = await this.repository.unlock(manager, actorId);
      await this.outbox.audit(
        manager,
        authAudit('auth.breakglass_unlocked', caller, { type: RESOURCE, id: actorId }, 'success', {
          was_locked: current.locked,
          failed_attempts: current.failed_attempts,
        }),
      );
      return unlocked;
    });
    this.outbox.committed();
    return toCredentialDto(row);
  }

  /** Admits one attempt from an IP, or refuses it with 429 and when to retry. */
  private async admitAttempt(clientIp: string): Promise<void> {
    const { attempts, windowSeconds } = BREAKGLASS_RATE_LIMIT;
    const decision = await this.repository.transaction(async (manager) => {
      const { times, now } = await this.repository.attemptsOf(manager, clientIp, windowSeconds);
      const verdict = decideAttempt(times, now, attempts, windowSeconds * 1000);
      if (verdict.allowed) await this.repository.recordAttempt(manager, clientIp, now);
      return verdict;
    });
    if (!decision.allowed) {
      throw new CertlaneError(
        ErrorCode.RateLimited,
        `too many break-glass login attempts from this address: at most ${attempts} per ${windowSeconds} s`,
        { retry_after_seconds: decision.retryAfterSeconds },
      );
    }
  }

  private assertEnabled(): void {
    if (!this.config.breakGlass.enabled) {
      throw new CertlaneError(ErrorCode.RouteNotFound, 'break-glass login is disabled');
    }
  }

  /** A hash of a random password: unknown actors are checked against it, so they take as long. */
  private dummy(): Promise<string> {
    this.dummyHash ??= hashPassword(randomBytes(24).toString('hex'));
    return this.dummyHash;
  }
}
