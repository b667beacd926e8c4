import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ServiceCoreModule } from '@certlane/platform';
import { AuthGuard } from './auth/auth.guard';
import { ApiKeysController } from './auth-routes/api-keys.controller';
import { BootstrapController } from './auth-routes/bootstrap.controller';
import { RenewalPoliciesController } from './renewal-policies/renewal-policies.controller';
import { SystemController } from './system/system.controller';

/** The public API: authenticates, validates, and forwards to the owning service over the bus. */
@Module({})
export class ApiGatewayModule {
  static forRoot(): DynamicModule {
    return {
      module: ApiGatewayModule,
      imports: [ServiceCoreModule.forService({ service: 'api-gateway' })],
      controllers: [SystemController, BootstrapController, ApiKeysController, RenewalPoliciesController],
      providers: [{ provide: APP_GUARD, useClass: AuthGuard }],
    };
  }
}
