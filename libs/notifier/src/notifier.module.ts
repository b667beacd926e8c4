import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';

/**
 * The notifier service. This shell owns its schema (migrations, outbox, readiness) and answers
 * `notifier.v1.ping`; its features land with their issues.
 */
@Module({})
export class NotifierModule {
  static forRoot(): DynamicModule {
    return { module: NotifierModule, imports: [ServiceCoreModule.forService({ service: 'notifier' })] };
  }
}
