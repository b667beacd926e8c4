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

/** The auth service: owns schema `auth` (API keys, roles and grants, the bootstrap state, the audit store). */
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
        AuthHandlers,
        AuditEventRepository,
        AuditStore,
        AuditIngestion,
        AuditHandlers,
      ],
    };
  }
}
