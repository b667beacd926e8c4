import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';

/**
 * The auth service. This shell owns its schema (migrations, outbox, readiness) and answers
 * `auth.v1.ping`; its features land with their issues.
 */
@Module({})
export class AuthModule {
  static forRoot(): DynamicModule {
    return { module: AuthModule, imports: [ServiceCoreModule.forService({ service: 'auth' })] };
  }
}
