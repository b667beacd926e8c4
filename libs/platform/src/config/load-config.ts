import { isIP } from 'node:net';
import { loadCloudDiscoveryConfig } from './cloud-discovery-config';
import {
  AUTH_TYPES,
  AuthType,
  CertlaneConfig,
  KEYGEN_MODES,
  LOG_LEVELS,
  SAME_SITE_VALUES,
  SameSite,
} from './certlane-config';
import { ConfigError } from './config-error';
import {
  parseBoolean,
  parseDayThresholds,
  parseDuration,
  parseEnum,
  parseInteger,
  parseList,
} from './parsers';
import { parseNamedApiKeys } from './named-keys';
import { parseNatsServers } from './nats-servers';
import { CONFIG_VARIABLES, KNOWN_VARIABLE_NAMES } from './variables';

export type Env = Record<string, string | undefined>;

export const ENCRYPTION_KEY_MIN_LENGTH = 32;
export const AUTH_SECRET_MIN_LENGTH = 16;
export const SESSION_SECRET_MIN_LENGTH = 32;

/** `Lax` or `Strict`, any case; `None` and anything else are refused (spec 5.4). */
export function parseSameSite(raw: string): SameSite {
  const value = raw.trim().toLowerCase();
  const match = SAME_SITE_VALUES.find((allowed) => allowed.toLowerCase() === value);
  if (!match) {
    throw new ConfigError(`SERVICE_SESSION_SAMESITE=${JSON.stringify(raw)} is not valid: use Lax or Strict`);
  }
  return match;
}

/** Names Express accepts besides addresses, for the usual private ranges. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** SERVICE_TRUSTED_PROXIES: IPs, CIDRs (`10.0.0.0/8`, `fd00::/8`) or loopback/linklocal/uniquelocal. */
export function parseTrustedProxies(raw: string): string[] {
  return parseNetworks('SERVICE_TRUSTED_PROXIES', raw, PROXY_RANGE_NAMES);
}

/** A comma-separated list of IPs and CIDRs (`10.0.0.0/8`, `fd00::/8`), plus any `names` allowed. */
export function parseNetworks(variable: string, raw: string, names: readonly string[] = []): string[] {
  const entries = parseList(raw);
  for (const entry of entries) {
    if (names.includes(entry)) continue;
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk =
      prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix && rest.length === 0);
    if (family === 0 || !prefixOk) {
      throw new ConfigError(
        `${variable} entry ${JSON.stringify(entry)} is not an IP address or CIDR like 10.0.0.0/8`,
      );
    }
  }
  return entries;
}

/**
 * `<prefix>_RETENTION_DAYS` (0 to keep everything, or 8 to 36500 days: an ACME order's life, or a
 * SCEP request's wait for its approval, 7 days, and one more, the protocol-frontends domain's
 * MIN_RETENTION_DAYS) and `<prefix>_RETENTION_INTERVAL` (10s to 24h), for SERVICE_ACME and
 * SERVICE_SCEP.
 */
function parseRetention(
  prefix: 'SERVICE_ACME' | 'SERVICE_SCEP',
  get: (name: string) => string | undefined,
): { retentionDays: number; retentionIntervalMs: number } {
  const daysName = `${prefix}_RETENTION_DAYS`;
  const raw = get(daysName) ?? '';
  const days = parseInteger(daysName, raw, 0, 36_500);
  if (days > 0 && days < 8)
    throw new ConfigError(
      `${daysName}=${JSON.stringify(raw)} must be 0 (keep everything) or at least 8: an order or an approval lives 7 days`,
    );
  const intervalName = `${prefix}_RETENTION_INTERVAL`;
  return {
    retentionDays: days,
    retentionIntervalMs: durationWithin(
      intervalName,
      get(intervalName) ?? '',
      10_000,
      24 * HOUR_MS,
      '10s and 24h',
    ),
  };
}

/** SERVICE_ACME_DNS_RESOLVERS: comma-separated IPv4 `a.b.c.d[:port]` or `[v6][:port]` resolvers. */
function parseResolvers(raw: string): string[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (!/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(:\d{1,5})?$/.test(entry))
      throw new ConfigError(
        `SERVICE_ACME_DNS_RESOLVERS entry ${JSON.stringify(entry)} is not an IP address with an optional port`,
      );
  }
  return entries;
}

/** SERVICE_ACME_CAA_IDENTITIES: comma-separated issuer domain names (RFC 8659 4.2), lower-cased. */
function parseCaaIdentities(raw: string): string[] {
  const entries = parseList(raw).map((entry) => entry.toLowerCase());
  for (const entry of entries) {
    if (!/^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/.test(entry))
      throw new ConfigError(
        `SERVICE_ACME_CAA_IDENTITIES entry ${JSON.stringify(entry)} is not a domain name`,
      );
  }
  return entries;
}

/** An absolute http(s) base URL without credentials, query or fragment; trailing slashes dropped. */
export function parseHttpBaseUrl(name: string, raw: string): string {
  return parseHttpUrl(name, raw).replace(/\/+$/, '');
}

/** An absolute http(s) URL without credentials, query or fragment, as written. */
function parseHttpUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(
      `${name}=${JSON.stringify(raw)} is not an absolute URL like https://pki.example.com`,
    );
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username) {
    throw new ConfigError(`${name} must be an http(s) URL without credentials, query or fragment`);
  }
  return url.toString();
}

/** An optional URL variable read with `parse` (an http URL as written, or a base URL): undefined when empty. */
function optionalUrl(
  name: string,
  get: (name: string) => string | undefined,
  parse: (name: string, raw: string) => string = parseHttpUrl,
): string | undefined {
  const raw = get(name);
  return raw ? parse(name, raw) : undefined;
}

const HOUR_MS = 3_600_000;

function durationWithin(name: string, raw: string, minMs: number, maxMs: number, bounds: string): number {
  const value = parseDuration(name, raw);
  if (value < minMs || value > maxMs) throw new ConfigError(`${name} must be between ${bounds}`);
  return value;
}

const PLACEHOLDER =
  /^(change[-_ ]?me.*|changeit|replace[-_ ]?me.*|placeholder|example|secret|password|default|demo|test|todo|none|null|your[-_ ].*|<.*>|x+|0+|1234\d*)$/i;

/** True for values that are obviously not real secrets (documentation samples, "changeme"...). */
export function isPlaceholderSecret(value: string): boolean {
  return PLACEHOLDER.test(value.trim()) || /change[-_ ]?me|replace[-_ ]?me|placeholder/i.test(value);
}

/**
 * Spec 5.1: `jwt` was removed in favour of an authenticating gateway; anything else unknown is
 * invalid. Called by loadConfig and again by the gateway at runtime.
 */
export function assertSupportedAuthType(raw: string): AuthType {
  const value = raw.trim().toLowerCase();
  if (value === 'jwt') {
    throw new ConfigError(
      'SERVICE_AUTH_TYPE=jwt is not supported: put an authenticating gateway (JWT, SAML, mTLS, LDAP) in front of Certlane and run it with SERVICE_AUTH_TYPE=none and SERVICE_DEMO_MODE_ACK=true',
    );
  }
  if (!(AUTH_TYPES as readonly string[]).includes(value)) {
    throw new ConfigError(`SERVICE_AUTH_TYPE=${JSON.stringify(raw)} is not valid: use api-key, oidc or none`);
  }
  return value as AuthType;
}

function withDefaults(env: Env): (name: string) => string | undefined {
  const defaults = new Map(CONFIG_VARIABLES.map((v) => [v.name, v.default]));
  return (name) => {
    const value = env[name];
    return value !== undefined && value !== '' ? value : defaults.get(name);
  };
}

function required(get: (name: string) => string | undefined, name: string, why: string): string {
  const value = get(name);
  if (value === undefined || value.trim() === '') throw new ConfigError(`${name} is required: ${why}`);
  return value;
}

/** Parses and validates every SERVICE_* variable; throws ConfigError with one clear line. */
export function loadConfig(env: Env): CertlaneConfig {
  const get = withDefaults(env);
  const demoModeAck = parseBoolean('SERVICE_DEMO_MODE_ACK', get('SERVICE_DEMO_MODE_ACK') ?? 'false');

  const authType = assertSupportedAuthType(get('SERVICE_AUTH_TYPE') ?? 'api-key');
  if (authType === 'none' && !demoModeAck) {
    throw new ConfigError(
      'SERVICE_AUTH_TYPE=none turns authentication off: it is allowed only with SERVICE_DEMO_MODE_ACK=true (demo use, or behind an authenticating gateway)',
    );
  }

  const certPath = required(
    get,
    'SERVICE_TLS_CERT_PATH',
    'Certlane serves TLS only (set it and SERVICE_TLS_KEY_PATH to PEM files)',
  );
  const keyPath = required(
    get,
    'SERVICE_TLS_KEY_PATH',
    'Certlane serves TLS only (set it and SERVICE_TLS_CERT_PATH to PEM files)',
  );

  const authSecret = get('SERVICE_AUTH_SECRET');
  if (authType === 'api-key' && !authSecret) {
    throw new ConfigError('SERVICE_AUTH_SECRET is required when SERVICE_AUTH_TYPE=api-key');
  }
  // In oidc mode too the secret is a bearer key with every permission: as long as in api-key mode.
  if (authSecret && authType !== 'none' && authSecret.length < AUTH_SECRET_MIN_LENGTH) {
    throw new ConfigError(`SERVICE_AUTH_SECRET must be at least ${AUTH_SECRET_MIN_LENGTH} characters`);
  }
  if (authSecret && isPlaceholderSecret(authSecret) && !demoModeAck) {
    throw new ConfigError(
      'SERVICE_AUTH_SECRET is a placeholder value: generate a real secret (for example `openssl rand -hex 32`) or set SERVICE_DEMO_MODE_ACK=true for demo use',
    );
  }
  // The bootstrap token mints an admin key: held to the same rules as the secret.
  const bootstrapToken = get('SERVICE_BOOTSTRAP_TOKEN');
  if (bootstrapToken && bootstrapToken.length < AUTH_SECRET_MIN_LENGTH) {
    throw new ConfigError(`SERVICE_BOOTSTRAP_TOKEN must be at least ${AUTH_SECRET_MIN_LENGTH} characters`);
  }
  if (bootstrapToken && isPlaceholderSecret(bootstrapToken) && !demoModeAck) {
    throw new ConfigError(
      'SERVICE_BOOTSTRAP_TOKEN is a placeholder value: generate a real token (for example `openssl rand -hex 32`) or set SERVICE_DEMO_MODE_ACK=true for demo use',
    );
  }

  const encryptionKey = required(
    get,
    'SERVICE_CONFIG_ENCRYPTION_KEY',
    'it encrypts secret-bearing configuration at rest',
  );
  if (encryptionKey.length < ENCRYPTION_KEY_MIN_LENGTH) {
    throw new ConfigError(
      `SERVICE_CONFIG_ENCRYPTION_KEY must be at least ${ENCRYPTION_KEY_MIN_LENGTH} characters`,
    );
  }
  if (isPlaceholderSecret(encryptionKey) && !demoModeAck) {
    throw new ConfigError(
      'SERVICE_CONFIG_ENCRYPTION_KEY is a placeholder value: generate a real key (for example `openssl rand -hex 32`) or set SERVICE_DEMO_MODE_ACK=true for demo use',
    );
  }

  const namedKeys = parseNamedApiKeys(get('SERVICE_API_KEYS_NAMED'));
  for (const named of namedKeys) {
    if (isPlaceholderSecret(named.key) && !demoModeAck) {
      throw new ConfigError(`SERVICE_API_KEYS_NAMED (${named.name}): the key is a placeholder value`);
    }
  }

  const corsOrigins = parseList(get('SERVICE_CORS_ORIGINS') ?? '');
  if (corsOrigins.includes('*') && !demoModeAck) {
    throw new ConfigError(
      'SERVICE_CORS_ORIGINS contains the wildcard *: list the allowed origins, or set SERVICE_DEMO_MODE_ACK=true for demo use',
    );
  }
  for (const origin of corsOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new ConfigError(
        `SERVICE_CORS_ORIGINS entry ${JSON.stringify(origin)} is not an origin like https://certs.example.com`,
      );
    }
  }

  const nats = parseNatsServers(parseList(get('SERVICE_NATS_URL') ?? ''));
  if (parseDuration('SERVICE_BUS_REQUEST_TIMEOUT', get('SERVICE_BUS_REQUEST_TIMEOUT') ?? '') < 100) {
    throw new ConfigError('SERVICE_BUS_REQUEST_TIMEOUT must be at least 100ms');
  }
  const namespace = get('SERVICE_NATS_NAMESPACE');
  if (namespace && !/^[A-Za-z0-9_-]{1,64}$/.test(namespace)) {
    throw new ConfigError('SERVICE_NATS_NAMESPACE may hold only letters, digits, - and _ (at most 64)');
  }
  const sessionSecrets = parseList(get('SERVICE_SESSION_SECRET') ?? '');
  for (const secret of sessionSecrets) {
    if (secret.length < SESSION_SECRET_MIN_LENGTH) {
      throw new ConfigError(
        `SERVICE_SESSION_SECRET: each secret must be at least ${SESSION_SECRET_MIN_LENGTH} characters`,
      );
    }
    if (isPlaceholderSecret(secret) && !demoModeAck) {
      throw new ConfigError('SERVICE_SESSION_SECRET is a placeholder value: generate a real secret');
    }
  }
  const sameSite = parseSameSite(get('SERVICE_SESSION_SAMESITE') ?? 'Lax');
  const trustedProxies = parseTrustedProxies(get('SERVICE_TRUSTED_PROXIES') ?? '');

  const revocationBaseUrl = parseHttpBaseUrl(
    'SERVICE_REVOCATION_BASE_URL',
    get('SERVICE_REVOCATION_BASE_URL') ?? '',
  );

  const issuerScriptsDirectory = (get('SERVICE_ISSUER_SCRIPTS_DIR') ?? '').replace(/\/+$/, '');
  if (!issuerScriptsDirectory.startsWith('/')) {
    throw new ConfigError('SERVICE_ISSUER_SCRIPTS_DIR must be an absolute directory');
  }

  const databaseUrl = get('SERVICE_DATABASE_URL') ?? '';
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('SERVICE_DATABASE_URL must be a postgres:// URL');
  }

  return {
    port: parseInteger('SERVICE_PORT', get('SERVICE_PORT') ?? '', 1, 65535),
    listenAddress: get('SERVICE_LISTEN_ADDRESS') ?? '0.0.0.0',
    tls: {
      certPath,
      keyPath,
      requestClientCert: parseBoolean(
        'SERVICE_TLS_REQUEST_CLIENT_CERT',
        get('SERVICE_TLS_REQUEST_CLIENT_CERT') ?? 'false',
      ),
    },
    outboundTls: {
      caBundlePath: get('SERVICE_SERVER_CA_BUNDLE_PATH'),
      insecureSkipVerify: parseBoolean(
        'SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY',
        get('SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY') ?? 'false',
      ),
    },
    database: {
      url: databaseUrl,
      poolSize: parseInteger('SERVICE_DATABASE_POOL_SIZE', get('SERVICE_DATABASE_POOL_SIZE') ?? '', 1, 200),
    },
    nats: {
      ...nats,
      namespace: get('SERVICE_NATS_NAMESPACE') || undefined,
      requestTimeoutMs: parseDuration(
        'SERVICE_BUS_REQUEST_TIMEOUT',
        get('SERVICE_BUS_REQUEST_TIMEOUT') ?? '',
      ),
    },
    auth: {
      type: authType,
      secret: authSecret,
      namedKeys,
      agentPrincipalCacheTtlMs: durationWithin(
        'SERVICE_AGENT_PRINCIPAL_CACHE_TTL',
        get('SERVICE_AGENT_PRINCIPAL_CACHE_TTL') ?? '',
        1000,
        HOUR_MS,
        '1s and 1h',
      ),
    },
    demoModeAck,
    demoSeed: parseBoolean('SERVICE_DEMO_SEED', get('SERVICE_DEMO_SEED') ?? 'false'),
    gatewayFastLane: parseBoolean('SERVICE_GATEWAY_FAST_LANE', get('SERVICE_GATEWAY_FAST_LANE') ?? 'true'),
    keygenMode: parseEnum('SERVICE_KEYGEN_MODE', get('SERVICE_KEYGEN_MODE') ?? 'agent', KEYGEN_MODES),
    policySweepIntervalMs: durationWithin(
      'SERVICE_POLICY_SWEEP_INTERVAL',
      get('SERVICE_POLICY_SWEEP_INTERVAL') ?? '',
      1000,
      24 * HOUR_MS,
      '1s and 24h',
    ),
    renewalSweepIntervalMs: durationWithin(
      'SERVICE_RENEWAL_SWEEP_INTERVAL',
      get('SERVICE_RENEWAL_SWEEP_INTERVAL') ?? '',
      1000,
      HOUR_MS,
      '1s and 1h',
    ),
    caExpiryAlertDays: parseDayThresholds(
      'SERVICE_CA_EXPIRY_ALERT_DAYS',
      get('SERVICE_CA_EXPIRY_ALERT_DAYS') ?? '',
      3650,
    ),
    networkAllowCidrs: (get('SERVICE_NETWORK_ALLOW_CIDRS') ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.length > 0),
    notificationRetryIntervalMs: durationWithin(
      'SERVICE_NOTIFICATION_RETRY_INTERVAL',
      get('SERVICE_NOTIFICATION_RETRY_INTERVAL') ?? '',
      1000,
      HOUR_MS,
      '1s and 1h',
    ),
    notifierAllowedNetworks: parseNetworks(
      'SERVICE_NOTIFIER_ALLOWED_NETWORKS',
      get('SERVICE_NOTIFIER_ALLOWED_NETWORKS') ?? '',
    ),
    guiUrl: parseHttpBaseUrl('SERVICE_GUI_URL', get('SERVICE_GUI_URL') ?? ''),
    cloudDiscoveryIntervalMs: durationWithin(
      'SERVICE_DISCOVERY_CLOUD_INTERVAL',
      get('SERVICE_DISCOVERY_CLOUD_INTERVAL') ?? '',
      60_000,
      168 * HOUR_MS,
      '1m and 168h',
    ),
    cloudDiscovery: loadCloudDiscoveryConfig(get),
    configEncryptionKey: encryptionKey,
    revocationBaseUrl,
    issuerScriptsDirectory,
    acme: {
      http01Port: parseInteger('SERVICE_ACME_HTTP01_PORT', get('SERVICE_ACME_HTTP01_PORT') ?? '', 1, 65535),
      tlsAlpn01Port: parseInteger(
        'SERVICE_ACME_TLSALPN01_PORT',
        get('SERVICE_ACME_TLSALPN01_PORT') ?? '',
        1,
        65535,
      ),
      issuerId: get('SERVICE_ACME_ISSUER_ID') || undefined,
      newOrdersPerHour: parseInteger(
        'SERVICE_ACME_NEW_ORDERS_PER_HOUR',
        get('SERVICE_ACME_NEW_ORDERS_PER_HOUR') ?? '',
        1,
        1_000_000,
      ),
      newAccountsPerIpPerHour: parseInteger(
        'SERVICE_ACME_NEW_ACCOUNTS_PER_IP_PER_HOUR',
        get('SERVICE_ACME_NEW_ACCOUNTS_PER_IP_PER_HOUR') ?? '',
        1,
        1_000_000,
      ),
      newOrdersPerIpPerHour: parseInteger(
        'SERVICE_ACME_NEW_ORDERS_PER_IP_PER_HOUR',
        get('SERVICE_ACME_NEW_ORDERS_PER_IP_PER_HOUR') ?? '',
        1,
        10_000_000,
      ),
      failedValidationsPerHour: parseInteger(
        'SERVICE_ACME_FAILED_VALIDATIONS_PER_HOUR',
        get('SERVICE_ACME_FAILED_VALIDATIONS_PER_HOUR') ?? '',
        1,
        1_000_000,
      ),
      challengeAnswerWaitMs: parseInteger(
        'SERVICE_ACME_CHALLENGE_ANSWER_WAIT_MS',
        get('SERVICE_ACME_CHALLENGE_ANSWER_WAIT_MS') ?? '',
        0,
        30_000,
      ),
      ...parseRetention('SERVICE_ACME', get),
      dnsResolvers: parseResolvers(get('SERVICE_ACME_DNS_RESOLVERS') ?? ''),
      caaIdentities: parseCaaIdentities(get('SERVICE_ACME_CAA_IDENTITIES') ?? ''),
      externalAccountRequired: parseBoolean(
        'SERVICE_ACME_EAB_REQUIRED',
        get('SERVICE_ACME_EAB_REQUIRED') ?? 'false',
      ),
      termsOfServiceUrl: optionalUrl('SERVICE_ACME_TERMS_OF_SERVICE_URL', get),
      termsOfServiceReagreement: parseReagreement(get),
      websiteUrl: optionalUrl('SERVICE_ACME_WEBSITE_URL', get),
      revocationExplanationUrl: optionalUrl('SERVICE_ACME_REVOCATION_EXPLANATION_URL', get, parseHttpBaseUrl),
    },
    scep: parseRetention('SERVICE_SCEP', get),
    revocation: {
      publishDir: get('SERVICE_REVOCATION_PUBLISH_DIR') || undefined,
      crlSweepIntervalMs: durationWithin(
        'SERVICE_CRL_SWEEP_INTERVAL',
        get('SERVICE_CRL_SWEEP_INTERVAL') ?? '',
        1000,
        HOUR_MS,
        '1s and 1h',
      ),
      crlRefreshBeforeMs: durationWithin(
        'SERVICE_CRL_REFRESH_BEFORE',
        get('SERVICE_CRL_REFRESH_BEFORE') ?? '',
        1000,
        24 * HOUR_MS - 1000,
        '1s and 23h59m59s',
      ),
      ocspSweepIntervalMs: durationWithin(
        'SERVICE_OCSP_SWEEP_INTERVAL',
        get('SERVICE_OCSP_SWEEP_INTERVAL') ?? '',
        1000,
        HOUR_MS,
        '1s and 1h',
      ),
      ocspRefreshBeforeMs: durationWithin(
        'SERVICE_OCSP_REFRESH_BEFORE',
        get('SERVICE_OCSP_REFRESH_BEFORE') ?? '',
        1000,
        HOUR_MS - 1000,
        '1s and 59m59s',
      ),
      responderRenewBeforeMs: durationWithin(
        'SERVICE_OCSP_RESPONDER_RENEW_BEFORE',
        get('SERVICE_OCSP_RESPONDER_RENEW_BEFORE') ?? '',
        60_000,
        720 * HOUR_MS,
        '1m and 720h',
      ),
      ocspCacheMaxBytes: parseInteger(
        'SERVICE_OCSP_CACHE_MAX_BYTES',
        get('SERVICE_OCSP_CACHE_MAX_BYTES') ?? '',
        1024 * 1024,
        1024 * 1024 * 1024,
      ),
    },
    corsOrigins,
    bootstrapToken,
    logLevel: parseEnum('SERVICE_LOG_LEVEL', get('SERVICE_LOG_LEVEL') ?? 'info', LOG_LEVELS),
    maxRequestBodyBytes: parseInteger(
      'SERVICE_MAX_REQUEST_BODY_BYTES',
      get('SERVICE_MAX_REQUEST_BODY_BYTES') ?? '',
      1024,
      256 * 1024 * 1024,
    ),
    migrationsDir: get('SERVICE_MIGRATIONS_DIR'),
    session: {
      sameSite,
      secrets: sessionSecrets.length > 0 ? sessionSecrets : [encryptionKey],
      dedicatedSecret: sessionSecrets.length > 0,
      bindUserAgent: parseBoolean(
        'SERVICE_SESSION_BIND_USER_AGENT',
        get('SERVICE_SESSION_BIND_USER_AGENT') ?? 'false',
      ),
      idleTimeoutMs: durationWithin(
        'SERVICE_SESSION_IDLE_TIMEOUT',
        get('SERVICE_SESSION_IDLE_TIMEOUT') ?? '',
        60_000,
        8 * 3_600_000,
        '1m and 8h',
      ),
      gcIntervalMs: durationWithin(
        'SERVICE_SESSION_GC_INTERVAL',
        get('SERVICE_SESSION_GC_INTERVAL') ?? '',
        1000,
        24 * 3_600_000,
        '1s and 24h',
      ),
    },
    trustedProxies,
    oidc: {
      preloginRequireUa: parseBoolean(
        'SERVICE_OIDC_PRELOGIN_REQUIRE_UA',
        get('SERVICE_OIDC_PRELOGIN_REQUIRE_UA') ?? 'true',
      ),
      preloginRequireIp: parseBoolean(
        'SERVICE_OIDC_PRELOGIN_REQUIRE_IP',
        get('SERVICE_OIDC_PRELOGIN_REQUIRE_IP') ?? 'false',
      ),
      bclMaxAgeSeconds: parseInteger(
        'SERVICE_OIDC_BCL_MAX_AGE_SECONDS',
        get('SERVICE_OIDC_BCL_MAX_AGE_SECONDS') ?? '300',
        10,
        86_400,
      ),
    },
    breakGlass: {
      enabled: parseBoolean('SERVICE_BREAKGLASS_ENABLED', get('SERVICE_BREAKGLASS_ENABLED') ?? 'false'),
      lockoutThreshold: parseInteger(
        'SERVICE_BREAKGLASS_LOCKOUT_THRESHOLD',
        get('SERVICE_BREAKGLASS_LOCKOUT_THRESHOLD') ?? '',
        1,
        100,
      ),
    },
    expiry: {
      sweepIntervalMs: durationWithin(
        'SERVICE_EXPIRY_SWEEP_INTERVAL',
        get('SERVICE_EXPIRY_SWEEP_INTERVAL') ?? '',
        1000,
        24 * 3_600_000,
        '1s and 24h',
      ),
    },
    jobs: {
      runningTimeoutMs: durationWithin(
        'SERVICE_JOB_RUNNING_TIMEOUT',
        get('SERVICE_JOB_RUNNING_TIMEOUT') ?? '',
        1000,
        24 * HOUR_MS,
        '1s and 24h',
      ),
      serverLeaseMs: durationWithin(
        'SERVICE_JOB_SERVER_LEASE',
        get('SERVICE_JOB_SERVER_LEASE') ?? '',
        1000,
        HOUR_MS,
        '1s and 1h',
      ),
    },
    unknownVariables: Object.keys(env).filter(
      (name) => name.startsWith('SERVICE_') && !KNOWN_VARIABLE_NAMES.has(name),
    ),
  };
}

/** SERVICE_ACME_TERMS_OF_SERVICE_REAGREEMENT, which asks agreement to terms there must be. */
function parseReagreement(get: (name: string) => string | undefined): boolean {
  const on = parseBoolean(
    'SERVICE_ACME_TERMS_OF_SERVICE_REAGREEMENT',
    get('SERVICE_ACME_TERMS_OF_SERVICE_REAGREEMENT') ?? 'false',
  );
  if (on && !get('SERVICE_ACME_TERMS_OF_SERVICE_URL'))
    throw new ConfigError(
      'SERVICE_ACME_TERMS_OF_SERVICE_REAGREEMENT=true needs SERVICE_ACME_TERMS_OF_SERVICE_URL: there are no terms to agree to',
    );
  return on;
}
