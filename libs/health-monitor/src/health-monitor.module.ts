import { DynamicModule, Module } from '@nestjs/common';
import { CERTLANE_CONFIG, ServiceCoreModule } from '@certlane/platform';
import { CloudDiscoveryLoop, CLOUD_SCANNERS, configuredCloudScanners } from './cloud/cloud-discovery.loop';
import { CloudScanner } from './cloud/cloud-scanner';
import { HealthCheckHandlers } from './health-checks/health-check.handlers';
import { HealthCheckRepository } from './health-checks/health-check.repository';
import { HealthCheckService } from './health-checks/health-check.service';
import { HealthMonitorLoop } from './health-checks/health-monitor.loop';
import { MONITOR_CLOCK, MonitorClock, SYSTEM_CLOCK } from './health-checks/monitor-clock';
import { MONITOR_TIMER } from './health-checks/health-monitor.loop';
import { TlsProber } from './health-checks/tls-prober';
import { AgentDiscoveryService } from './discovery/agent-discovery.service';
import { DiscoveryRecorder } from './discovery/discovery-recorder';
import { DiscoveredCertificateService } from './network-scan/discovered-certificate.service';
import { NetworkScanner } from './network-scan/network-scanner';
import { ScanScheduler } from './network-scan/scan-scheduler';
import { ScanTargetService } from './network-scan/scan-target.service';
import { ScepProbeHandlers } from './scep-probe/scep-probe.handlers';
import { ScepProbeRepository } from './scep-probe/scep-probe.repository';
import { ScepProbeService } from './scep-probe/scep-probe.service';
import { ScepProber } from './scep-probe/scep-prober';

/**
 * The health-monitor service: owns schema `health_monitor` and answers `health-monitor.v1.*`:
 * endpoint health checks, the monitor loop that probes them, and the SCEP probe (ADR 0057).
 * Network scan targets, triggered and scheduled scans, and discovered-certificate triage.
 */
@Module({})
export class HealthMonitorModule {
  /** Tests pass a fake clock and `timer: false` to drive the loop themselves (runDue). */
  static forRoot(
    options: { clock?: MonitorClock; timer?: boolean; cloudScanners?: CloudScanner[] } = {},
  ): DynamicModule {
    return {
      module: HealthMonitorModule,
      imports: [ServiceCoreModule.forService({ service: 'health-monitor' })],
      providers: [
        { provide: MONITOR_CLOCK, useValue: options.clock ?? SYSTEM_CLOCK },
        { provide: MONITOR_TIMER, useValue: options.timer ?? true },
        HealthCheckRepository,
        HealthCheckService,
        HealthCheckHandlers,
        TlsProber,
        HealthMonitorLoop,
        // The SCEP probe (spec 2.17, 4.9).
        ScepProber,
        ScepProbeRepository,
        ScepProbeService,
        ScepProbeHandlers,
        // Network TLS scans: targets, trigger, scheduled scans, scans (ADR 0057, 0063).
        NetworkScanner,
        ScanTargetService,
        ScanScheduler,
        DiscoveredCertificateService,
        // Discovery from every source stores through one recorder; agents push (ADR 0063).
        DiscoveryRecorder,
        AgentDiscoveryService,
        // Cloud secret-manager discovery by the cloud-<provider>-sm sentinels (ADR 0063).
        options.cloudScanners
          ? { provide: CLOUD_SCANNERS, useValue: options.cloudScanners }
          : { provide: CLOUD_SCANNERS, useFactory: configuredCloudScanners, inject: [CERTLANE_CONFIG] },
        CloudDiscoveryLoop,
      ],
    };
  }
}
