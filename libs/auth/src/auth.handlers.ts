import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { resolvePage } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { RoleRepository } from './roles/role.repository';
import { RoleService } from './roles/role.service';
import { ApiKeyService } from './api-keys/api-key.service';
import { BootstrapService } from './bootstrap/bootstrap.service';
import { presentedKeyHash } from './api-keys/api-key-secret';
import { callerOf } from './audit/auth-audit';
import { BreakGlassService } from './breakglass/breakglass.service';
import { SessionService } from './sessions/session.service';
import { UserService } from './user-admin/user.service';
import { OidcAdminService } from './oidc/oidc-admin.service';
import { OidcLoginService } from './oidc/oidc-login.service';

/** Serves the auth subjects of libs/contracts on the bus. */
@Injectable()
export class AuthHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly keys: ApiKeyService,
    private readonly bootstrap: BootstrapService,
    private readonly roles: RoleRepository,
    private readonly roleAdmin: RoleService,
    private readonly sessions: SessionService,
    private readonly breakGlass: BreakGlassService,
    private readonly users: UserService,
    private readonly oidc: OidcAdminService,
    private readonly oidcLogin: OidcLoginService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('auth.v1.authenticate-api-key', (request) =>
        this.keys.authenticate(presentedKeyHash(request)),
      ),
      this.bus.handle('auth.v1.get-bootstrap-status', () => this.bootstrap.status()),
      this.bus.handle('auth.v1.bootstrap', (request, context) => this.bootstrap.consume(request, context)),
      this.bus.handle('auth.v1.list-api-keys', (request) => this.keys.list(request)),
      this.bus.handle('auth.v1.create-api-key', (request, context) => this.keys.create(request, context)),
      this.bus.handle('auth.v1.rotate-api-key', (request, context) =>
        this.keys.rotate(request.id, context, request.manager),
      ),
      this.bus.handle('auth.v1.list-roles', (request) => this.roleAdmin.list(request)),
      this.bus.handle('auth.v1.get-role', (request) => this.roleAdmin.get(request.id)),
      this.bus.handle('auth.v1.create-role', (request, context) => this.roleAdmin.create(request, context)),
      this.bus.handle('auth.v1.update-role', (request, context) => this.roleAdmin.update(request, context)),
      this.bus.handle('auth.v1.delete-role', (request, context) =>
        this.roleAdmin.delete(request.id, context),
      ),
      this.bus.handle('auth.v1.grant-role', (request, context) => this.roleAdmin.grant(request, context)),
      this.bus.handle('auth.v1.revoke-role', (request, context) => this.roleAdmin.revoke(request, context)),
      this.bus.handle('auth.v1.list-actors', (request) => this.roles.listActors(resolvePage(request))),
      this.bus.handle('auth.v1.list-grants', (request) =>
        this.roles.listGrants(resolvePage(request), request),
      ),
      this.bus.handle('auth.v1.delete-api-key', (request, context) =>
        this.keys.delete(request.id, context, request.manager),
      ),
      this.bus.handle('auth.v1.authenticate-session', (request) => this.sessions.authenticate(request)),
      this.bus.handle('auth.v1.logout', async (request, context) => {
        const { oidc_provider_id: providerId, ...loggedOut } = await this.sessions.logout(
          request,
          context.request_id,
        );
        const endSessionUrl = providerId ? await this.oidcLogin.endSessionUrl(providerId) : null;
        return endSessionUrl ? { ...loggedOut, end_session_url: endSessionUrl } : loggedOut;
      }),
      this.bus.handle('auth.v1.list-sessions', (request) => this.sessions.list(request)),
      this.bus.handle('auth.v1.revoke-session', (request, context) =>
        this.sessions.revoke(request, context.request_id),
      ),
      this.bus.handle('auth.v1.revoke-other-sessions', (request, context) =>
        this.sessions.revokeOthers(request, context.request_id),
      ),
      this.bus.handle('auth.v1.breakglass-login', (request, context) =>
        this.breakGlass.login(request, context.request_id),
      ),
      this.bus.handle('auth.v1.list-breakglass-credentials', (request) => this.breakGlass.list(request)),
      this.bus.handle('auth.v1.set-breakglass-credential', (request, context) =>
        this.breakGlass.set(request, callerOf(context)),
      ),
      this.bus.handle('auth.v1.delete-breakglass-credential', (request, context) =>
        this.breakGlass.delete(request.actor_id, callerOf(context)),
      ),
      this.bus.handle('auth.v1.unlock-breakglass-credential', (request, context) =>
        this.breakGlass.unlock(request.actor_id, callerOf(context)),
      ),
      this.bus.handle('auth.v1.list-oidc-providers', (request) => this.oidc.list(request)),
      this.bus.handle('auth.v1.create-oidc-provider', (request, context) =>
        this.oidc.create(request, callerOf(context)),
      ),
      this.bus.handle('auth.v1.update-oidc-provider', (request, context) =>
        this.oidc.update(request, callerOf(context)),
      ),
      this.bus.handle('auth.v1.delete-oidc-provider', (request, context) =>
        this.oidc.delete(request.id, callerOf(context)),
      ),
      this.bus.handle('auth.v1.refresh-oidc-provider', (request, context) =>
        this.oidc.refresh(request.id, callerOf(context)),
      ),
      this.bus.handle('auth.v1.get-oidc-jwks-status', (request) => this.oidc.jwksStatus(request.id)),
      this.bus.handle('auth.v1.test-oidc-provider', (request) => this.oidc.test(request)),
      this.bus.handle('auth.v1.list-oidc-group-mappings', (request) => this.oidc.listMappings(request)),
      this.bus.handle('auth.v1.create-oidc-group-mapping', (request, context) =>
        this.oidc.createMapping(request, callerOf(context)),
      ),
      this.bus.handle('auth.v1.delete-oidc-group-mapping', (request, context) =>
        this.oidc.deleteMapping(request.id, callerOf(context)),
      ),
      this.bus.handle('auth.v1.oidc-begin-login', (request, context) =>
        this.oidcLogin.begin(request, context.request_id),
      ),
      this.bus.handle('auth.v1.oidc-complete-login', (request, context) =>
        this.oidcLogin.complete(request, context.request_id),
      ),
      this.bus.handle('auth.v1.oidc-back-channel-logout', (request, context) =>
        this.oidcLogin.backChannelLogout(request, context.request_id),
      ),
      this.bus.handle('auth.v1.list-users', (request) => this.users.list(request)),
      this.bus.handle('auth.v1.deactivate-user', (request, context) =>
        this.users.deactivate(request.actor_id, callerOf(context), request.caller_admin),
      ),
      this.bus.handle('auth.v1.reactivate-user', (request, context) =>
        this.users.reactivate(request.actor_id, callerOf(context)),
      ),
      this.bus.handle('auth.v1.cleanup-demo-residual', (_request, context) =>
        this.users.cleanupDemoResidual(callerOf(context)),
      ),
    ]);
  }
}
