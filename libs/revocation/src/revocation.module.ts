import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';

/**
 * The revocation service. This shell owns its schema (migrations, outbox, readiness) and answers
 * `revocation.v1.ping`; its features land with their issues.
 */
@Module({})
export class RevocationModule {
  static forRoot(): DynamicModule {
    return { module: RevocationModule, imports: [ServiceCoreModule.forService({ service: 'revocation' })] };
  }
}
