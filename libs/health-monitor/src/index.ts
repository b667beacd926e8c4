export * from './health-monitor.module';
export { HealthMonitorLoop } from './health-checks/health-monitor.loop';
export { TlsProber } from './health-checks/tls-prober';
export { MONITOR_CLOCK } from './health-checks/monitor-clock';
export type { MonitorClock } from './health-checks/monitor-clock';
