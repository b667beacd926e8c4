import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';

/**
 * The protocol-frontends service. This shell owns its schema (migrations, outbox, readiness) and answers
 * `protocol-frontends.v1.ping`; its features land with their issues.
 */
@Module({})
export class ProtocolFrontendsModule {
  static forRoot(): DynamicModule {
    return {
      module: ProtocolFrontendsModule,
      imports: [ServiceCoreModule.forService({ service: 'protocol-frontends' })],
    };
  }
}
