import { ConfigError } from './config-error';

/** How the services authenticate to NATS: a user and password, or a token. */
export type NatsCredentials = { user: string; pass: string } | { token: string };

export interface NatsServers {
  /** The server URLs without their credentials (nats.js would read `user:pass@` as nothing). */
  servers: string[];
  credentials?: NatsCredentials;
}

/**
 * SERVICE_NATS_URL's servers, each `nats://` or `tls://`, with the credentials their user-info
 * carries taken out: `user:password@` (NATS user authentication) or `token@` (token
 * authentication), percent-decoded. nats.js takes credentials only as connect options: left in the
 * URL they were ignored (AUTHORIZATION_VIOLATION), and a password starting with digits was read as
 * the port. Every server must carry the same credentials, or none.
 */
export function parseNatsServers(entries: readonly string[]): NatsServers {
  if (entries.length === 0)
    throw new ConfigError('SERVICE_NATS_URL must name at least one nats:// or tls:// server');
  const servers: string[] = [];
  const found = new Set<string>();
  let credentials: NatsCredentials | undefined;
  entries.forEach((entry, index) => {
    // Never the entry itself in a message: it may hold a password.
    const where = `SERVICE_NATS_URL entry ${index + 1}`;
    const scheme = /^(nats|tls):\/\//.exec(entry)?.[1];
    if (!scheme) throw new ConfigError(`${where} must start with nats:// or tls://`);
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ConfigError(`${where} is not a URL like nats://host:4222`);
    }
    if (!url.hostname) throw new ConfigError(`${where} names no host`);
    if (url.pathname !== '' && url.pathname !== '/') throw new ConfigError(`${where} must not have a path`);
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    const own: NatsCredentials | undefined = !user ? undefined : pass ? { user, pass } : { token: user };
    found.add(JSON.stringify(own ?? null));
    if (own) credentials = own;
    servers.push(`${scheme}://${url.host}`);
  });
  if (found.size > 1)
    throw new ConfigError('every SERVICE_NATS_URL entry must carry the same credentials, or none');
  return credentials ? { servers, credentials } : { servers };
}
