import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';

/**
 * The health-monitor service. This shell owns its schema (migrations, outbox, readiness) and answers
 * `health-monitor.v1.ping`; its features land with their issues.
 */
@Module({})
export class HealthMonitorModule {
  static forRoot(): DynamicModule {
    return {
      module: HealthMonitorModule,
      imports: [ServiceCoreModule.forService({ service: 'health-monitor' })],
    };
  }
}
