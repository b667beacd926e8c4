import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { ConfigError } from '../config/config-error';
import { CertlaneConfig } from '../config/certlane-config';
import { CertlaneLogger } from '../logging/logger';

export interface OutboundTlsOptions {
  ca: string[];
  rejectUnauthorized: boolean;
  minVersion: 'TLSv1.2';
}

/**
 * Trust settings for every outbound TLS client (NATS, Postgres, connectors, the agent):
 * system roots plus SERVICE_SERVER_CA_BUNDLE_PATH. Outbound peers may still speak TLS 1.2;
 * only our own listener is 1.3-only.
 */
export function outboundTlsOptions(
  config: CertlaneConfig['outboundTls'],
  logger?: CertlaneLogger,
): OutboundTlsOptions {
  const ca = [...rootCertificates];
  if (config.caBundlePath) {
    try {
      ca.push(readFileSync(config.caBundlePath, 'utf8'));
    } catch (error) {
      throw new ConfigError(
        `SERVICE_SERVER_CA_BUNDLE_PATH ${config.caBundlePath} cannot be read: ${(error as Error).message}`,
      );
    }
  }
  if (config.insecureSkipVerify) {
    logger?.warn(
      'SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY=true: outbound TLS certificates are NOT verified. Development use only.',
    );
  }
  return { ca, rejectUnauthorized: !config.insecureSkipVerify, minVersion: 'TLSv1.2' };
}
