import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@certlane/platform';
import { HealthCheckHandlers } from './health-checks/health-check.handlers';
import { HealthCheckRepository } from './health-checks/health-check.repository';
import { HealthCheckService } from './health-checks/health-check.service';
import { MONITOR_CLOCK, SYSTEM_CLOCK } from './health-checks/monitor-clock';

/**
 * The health-monitor service: owns schema `health_monitor` and answers `health-monitor.v1.*`:
 * endpoint health checks (ADR 0058). Probing, scans and discovery land with issue 23's later steps.
 */
@Module({})
export class HealthMonitorModule {
  static forRoot(): DynamicModule {
    return {
      module: HealthMonitorModule,
      imports: [ServiceCoreModule.forService({ service: 'health-monitor' })],
      providers: [
        { provide: MONITOR_CLOCK, useValue: SYSTEM_CLOCK },
        HealthCheckRepository,
        HealthCheckService,
        HealthCheckHandlers,
      ],
    };
  }
}
