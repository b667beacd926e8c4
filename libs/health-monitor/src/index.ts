export * from './health-monitor.module';
