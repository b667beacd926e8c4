// The health monitor's pure domain (ADR 0057): no Nest, database or network imports.
export * from './health-status/health-status';
export * from './health-status/probe-verdict';
export * from './scheduling/probe-schedule';
export * from './discovered-certificates/discovered-status';
export type { Cidr, IpAddress } from '@certlane/network-safety';
export * from './network-safety/reserved-addresses';
export * from './scep-probe/scep-capabilities';
export * from './network-scan/scan-targets';
export * from './network-scan/scan-schedule';
export * from './network-scan/scan-liveness';
