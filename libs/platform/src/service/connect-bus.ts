import { CertlaneConfig } from '../config/certlane-config';
import { CertlaneLogger } from '../logging/logger';
import { BusHooks } from '../messaging/message-bus';
import { NatsBus } from '../messaging/nats-bus';
import { Metrics } from '../observability/metrics';
import { OutboundTlsOptions } from '../tls/outbound-tls';

/** Logging and metrics for whatever bus a process uses. */
export function busHooks(logger: CertlaneLogger, metrics: Metrics): BusHooks {
  return {
    onUnexpected: (error) => logger.error({ err: error }, 'bus handler failed'),
    onRequestHandled: (subject, outcome) => metrics.busRequests.inc({ subject, outcome }),
  };
}

/** Connects to NATS as configured; `tls://` servers are verified with the outbound trust. */
export function connectNatsBus(
  config: CertlaneConfig,
  program: string,
  outbound: OutboundTlsOptions,
  hooks: BusHooks,
): Promise<NatsBus> {
  const useTls = config.nats.servers.some((server) => server.startsWith('tls://'));
  return NatsBus.connect({
    servers: config.nats.servers,
    ...config.nats.credentials,
    namespace: config.nats.namespace,
    name: program,
    requestTimeoutMs: config.nats.requestTimeoutMs,
    // nats.js hands these to tls.connect.
    tls: useTls
      ? ({ ca: outbound.ca.join('\n'), rejectUnauthorized: outbound.rejectUnauthorized } as never)
      : undefined,
    ...hooks,
  });
}
