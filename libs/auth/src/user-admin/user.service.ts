import { Inject, Injectable } from '@nestjs/common';
import {
  CertlaneError,
  DemoResidualRemoved,
  ErrorCode,
  ListUsersRequest,
  Page,
  resolvePage,
  UserDeactivated,
  UserDto,
} from '@certlane/contracts';
import { CERTLANE_CONFIG, CertlaneConfig, outboxToken, ServiceOutbox } from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { ApiKeyRepository } from '../api-keys/api-key.repository';
import { authAudit, AuthCaller } from '../audit/auth-audit';
import { BreakGlassRepository } from '../breakglass/breakglass.repository';
import { RoleRepository } from '../roles/role.repository';
import { SessionService } from '../sessions/session.service';
import { toUserDto, UserRepository } from '../users/user.repository';

/** The synthetic actor of `SERVICE_AUTH_TYPE=none` (spec 5.1). */
export const DEMO_ACTOR_ID = 'actor-demo-anon';

const notFound = (id: string) =>
  new CertlaneError(ErrorCode.UserNotFound, `user ${JSON.stringify(id)} not found`);

/**
 * Users (docs/decisions/0018): list, deactivate (which revokes every session and deletes every
 * stored API key of the user in the same transaction, publishing their revocation events), and
 * reactivate; plus the cleanup of what demo mode left behind.
 */
@Injectable()
export class UserService {
  constructor(
    private readonly users: UserRepository,
    private readonly keys: ApiKeyRepository,
    private readonly roles: RoleRepository,
    private readonly breakGlass: BreakGlassRepository,
    private readonly sessions: SessionService,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(outboxToken('auth')) private readonly outbox: ServiceOutbox,
  ) {}

  list(request: ListUsersRequest): Promise<Page<UserDto>> {
    return this.users.list(resolvePage(request));
  }

  /** `callerAdmin`: only an admin may deactivate an admin (ADR 0018). */
  async deactivate(id: string, caller: AuthCaller, callerAdmin: boolean): Promise<UserDeactivated> {
    if (id === caller.actorId) {
      throw new CertlaneError(ErrorCode.UserSelfDeactivation, 'you cannot deactivate yourself');
    }
    const result = await this.users.transaction(async (manager) => {
      if (!(await this.users.find(manager, id))) throw notFound(id);
      const admin = await this.users.isAdmin(manager, id);
      if (admin && !callerAdmin) {
        throw new CertlaneError(ErrorCode.Forbidden, `${id} is an admin: only an admin can deactivate it`);
      }
      // The last active admin stays: without one nobody could manage roles or users any more.
      if (admin && !(await this.users.anotherActiveAdmin(manager, id))) {
        throw new CertlaneError(
          ErrorCode.Conflict,
          `${id} is the last active admin: grant r-admin to another actor before deactivating it`,
        );
      }
      const user = await this.users.setActive(manager, id, false);
      const keys = await this.deleteKeys(manager, id, false);
      const sessions = await this.sessions.revokeAllOf(manager, id);
      await this.outbox.audit(
        manager,
        authAudit('auth.user_deactivated', caller, { type: 'user', id }, 'success', {
          sessions_revoked: sessions,
          api_keys_revoked: keys,
        }),
      );
      return { user: toUserDto(user), sessions_revoked: sessions, api_keys_revoked: keys };
    });
    this.outbox.committed();
    return result;
  }

  async reactivate(id: string, caller: AuthCaller): Promise<UserDto> {
    const user = await this.users.transaction(async (manager) => {
      const current = await this.users.find(manager, id);
      if (!current) throw notFound(id);
      const row = await this.users.setActive(manager, id, true);
      await this.outbox.audit(
        manager,
        authAudit('auth.user_reactivated', caller, { type: 'user', id }, 'success', {
          was_active: current.active,
        }),
      );
      return row;
    });
    this.outbox.committed();
    return toUserDto(user);
  }

  /**
   * Removes what demo mode (SERVICE_AUTH_TYPE=none) left behind: the keys, grants, sessions,
   * break-glass credential and user row of actor-demo-anon, plus the keys it created and the
   * grants it gave. Refused with 503 while the system runs in demo mode.
   */
  async cleanupDemoResidual(caller: AuthCaller): Promise<DemoResidualRemoved> {
    if (this.config.auth.type === 'none') {
      throw new CertlaneError(
        ErrorCode.DemoModeActive,
        'the system runs in demo mode (SERVICE_AUTH_TYPE=none): switch authentication on before cleaning up',
      );
    }
    const removed = await this.users.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['certlane:auth:demo-cleanup']);
      const apiKeys = await this.deleteKeys(manager, DEMO_ACTOR_ID, true);
      const grantedActors = await this.roles.deleteGrantsOf(manager, DEMO_ACTOR_ID, true);
      for (const actorId of new Set(grantedActors)) {
        await this.outbox.add(manager, 'auth.v1.grants.changed', { actor_id: actorId }, caller.actorId);
      }
      const sessions = await this.sessions.deleteAllOf(manager, DEMO_ACTOR_ID);
      const credentials = await this.breakGlass.delete(manager, DEMO_ACTOR_ID);
      const users = await this.users.delete(manager, DEMO_ACTOR_ID);
      const breakdown = { api_keys: apiKeys, grants: grantedActors.length, sessions, credentials, users };
      const total = apiKeys + grantedActors.length + sessions + credentials + users;
      await this.outbox.audit(
        manager,
        authAudit('auth.demo_residual_cleaned', caller, { type: 'user', id: DEMO_ACTOR_ID }, 'success', {
          removed: total,
          ...breakdown,
        }),
      );
      return total;
    });
    this.outbox.committed();
    return { removed };
  }

  private async deleteKeys(manager: EntityManager, actorId: string, orCreatedBy: boolean): Promise<number> {
    const deleted = await this.keys.deleteOfActor(manager, actorId, orCreatedBy);
    for (const key of deleted) {
      await this.outbox.add(manager, 'auth.v1.api-key.revoked', { id: key.id, actor_id: key.actor_id });
    }
    return deleted.length;
  }
}
