import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
import { AuthHandlers } from './auth.handlers';
import { ApiKeyRepository } from './api-keys/api-key.repository';
import { ApiKeyService } from './api-keys/api-key.service';
import { BootstrapService } from './bootstrap/bootstrap.service';
import { RoleRepository } from './roles/role.repository';
import { RoleSeeder } from './roles/role-seeder';
import { RoleService } from './roles/role.service';

/** The auth service: owns schema `auth` (API keys, roles and grants, the bootstrap state so far). */
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
      ],
    };
  }
}
