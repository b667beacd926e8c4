import { OutboundTlsOptions } from '../tls/outbound-tls';

export interface PostgresConnection {
  connectionString: string;
  ssl?: { ca: string[]; rejectUnauthorized: boolean };
}

const TLS_MODES = new Set(['require', 'verify-ca', 'verify-full']);
const SSL_PARAMS = ['sslmode', 'ssl', 'sslcert', 'sslkey', 'sslrootcert', 'uselibpqcompat'];

/**
 * Postgres connection settings from SERVICE_DATABASE_URL. With `sslmode=require|verify-ca|
 * verify-full` the connection uses TLS verified against the outbound trust (system roots plus
 * SERVICE_SERVER_CA_BUNDLE_PATH, or no verification with the insecure development switch);
 * the URL's own ssl parameters are removed so they cannot override that trust.
 */
export function postgresConnection(url: string, outbound: OutboundTlsOptions): PostgresConnection {
  const parsed = new URL(url);
  const mode =
    parsed.searchParams.get('sslmode') ?? (parsed.searchParams.get('ssl') === 'true' ? 'require' : 'disable');
  for (const param of SSL_PARAMS) parsed.searchParams.delete(param);
  const connectionString = parsed.toString();
  if (!TLS_MODES.has(mode)) return { connectionString };
  return { connectionString, ssl: { ca: outbound.ca, rejectUnauthorized: outbound.rejectUnauthorized } };
}
