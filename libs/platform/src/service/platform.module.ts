import { DynamicModule, Global, Module } from '@nestjs/common';
import { CertlaneConfig } from '../config/certlane-config';
import { CertlaneLogger } from '../logging/logger';
import { MessageBus } from '../messaging/message-bus';
import { HealthController } from './health.controller';
import { Metrics } from '../observability/metrics';
import { ReadinessRegistry } from '../observability/readiness';
import { BuildInfo } from './build-info';
import { BUILD_INFO, CERTLANE_CONFIG, LOGGER, MESSAGE_BUS, METRICS, READINESS } from './tokens';

export interface PlatformDeps {
  config: CertlaneConfig;
  logger: CertlaneLogger;
  bus: MessageBus;
  metrics: Metrics;
  readiness: ReadinessRegistry;
  buildInfo: BuildInfo;
}

/** Provides configuration, logger, bus, metrics, readiness and build info to every module. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(deps: PlatformDeps): DynamicModule {
    deps.readiness.add('bus', () => deps.bus.isHealthy());
    const providers = [
      { provide: CERTLANE_CONFIG, useValue: deps.config },
      { provide: LOGGER, useValue: deps.logger },
      { provide: MESSAGE_BUS, useValue: deps.bus },
      { provide: METRICS, useValue: deps.metrics },
      { provide: READINESS, useValue: deps.readiness },
      { provide: BUILD_INFO, useValue: deps.buildInfo },
    ];
    return {
      module: PlatformModule,
      controllers: [HealthController],
      providers,
      exports: providers.map((p) => p.provide),
    };
  }
}
