import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';

/**
 * The deployment-dispatch service. This shell owns its schema (migrations, outbox, readiness) and answers
 * `deployment-dispatch.v1.ping`; its features land with their issues.
 */
@Module({})
export class DeploymentDispatchModule {
  static forRoot(): DynamicModule {
    return {
      module: DeploymentDispatchModule,
      imports: [ServiceCoreModule.forService({ service: 'deployment-dispatch' })],
    };
  }
}
