import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
import { AuthHandlers } from './auth.handlers';
import { ApiKeyRepository } from './api-keys/api-key.repository';
import { ApiKeyService } from './api-keys/api-key.service';
import { BootstrapService } from './bootstrap/bootstrap.service';

/** The auth service: owns schema `auth` (API keys, role grants, the bootstrap state so far). */
@Module({})
export class AuthModule {
  static forRoot(): DynamicModule {
    return {
      module: AuthModule,
      imports: [ServiceCoreModule.forService({ service: 'auth' })],
      providers: [ApiKeyRepository, ApiKeyService, BootstrapService, AuthHandlers],
    };
  }
}
