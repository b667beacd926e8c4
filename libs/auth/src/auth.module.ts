import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
import { AuthHandlers } from './auth.handlers';
import { AuditEventRepository } from './audit/audit-event.repository';
import { AuditHandlers } from './audit/audit.handlers';
import { AuditIngestion } from './audit/audit-ingestion';
import { AuditStore } from './audit/audit-store';
import { ApiKeyRepository } from './api-keys/api-key.repository';
import { ApiKeyService } from './api-keys/api-key.service';
import { BootstrapService } from './bootstrap/bootstrap.service';
import { RoleRepository } from './roles/role.repository';
import { RoleSeeder } from './roles/role-seeder';
import { RoleService } from './roles/role.service';
import { BreakGlassRepository } from './breakglass/breakglass.repository';
import { BreakGlassService } from './breakglass/breakglass.service';
import { SessionGc } from './session-gc';
import { SessionRepository } from './sessions/session.repository';
import { SessionService } from './sessions/session.service';
import { UserRepository } from './users/user.repository';
import { UserService } from './user-admin/user.service';
import { OidcAdminService } from './oidc/oidc-admin.service';
import { OidcClients } from './oidc/oidc-clients';
import { OidcLoginService } from './oidc/oidc-login.service';
import { OidcRepository } from './oidc/oidc.repository';

/**
 * The auth service: owns schema `auth` (API keys, roles and grants, the bootstrap state, users,
 * sessions and break-glass credentials, OIDC providers and group mappings, the audit store).
 */
@Module({})
export class AuthModule {
  static forRoot(): DynamicModule {
    return {
      module: AuthModule,
      imports: [ServiceCoreModule.forService({ service: 'auth' })],
      providers: [
        ApiKeyRepository,
        RoleRepository,
        RoleSeeder,
        RoleService,
        ApiKeyService,
        BootstrapService,
        UserRepository,
        SessionRepository,
        SessionService,
        SessionGc,
        BreakGlassRepository,
        BreakGlassService,
        UserService,
        OidcRepository,
        OidcClients,
        OidcAdminService,
        OidcLoginService,
        AuthHandlers,
        AuditEventRepository,
        AuditStore,
        AuditIngestion,
        AuditHandlers,
      ],
    };
  }
}
