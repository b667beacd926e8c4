import { NamedApiKey } from './named-keys';
import type { NatsCredentials } from './nats-servers';
import type { CloudDiscoveryConfig } from './cloud-discovery-config';

export const AUTH_TYPES = ['api-key', 'oidc', 'none'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const KEYGEN_MODES = ['agent', 'server'] as const;
export type KeygenMode = (typeof KEYGEN_MODES)[number];

export const SAME_SITE_VALUES = ['Lax', 'Strict'] as const;
export type SameSite = (typeof SAME_SITE_VALUES)[number];

/** Browser sessions (spec 5.4, docs/decisions/0017-sessions-and-csrf.md). */
export interface SessionConfig {
  sameSite: SameSite;
  /** Secrets the cookie signing keys derive from; the first signs. Never empty. */
  secrets: string[];
  /** True when `secrets` came from SERVICE_SESSION_SECRET, false when derived from the encryption key. */
  dedicatedSecret: boolean;
  bindUserAgent: boolean;
  idleTimeoutMs: number;
  gcIntervalMs: number;
}

/** OIDC sign-in (spec 5.4, 5.5; ADR 0081). */
export interface OidcConfig {
  /** SERVICE_OIDC_PRELOGIN_REQUIRE_UA: the callback must come with the User-Agent the login started with. */
  preloginRequireUa: boolean;
  /** SERVICE_OIDC_PRELOGIN_REQUIRE_IP: the callback must come from the client IP the login started from. */
  preloginRequireIp: boolean;
  /** SERVICE_OIDC_BCL_MAX_AGE_SECONDS: the oldest back-channel logout token (by its iat) accepted. */
  bclMaxAgeSeconds: number;
}

/** Break-glass password login (spec 5.7, docs/decisions/0018-break-glass-and-users.md). */
export interface BreakGlassConfig {
  enabled: boolean;
  lockoutThreshold: number;
}

/** The revocation service's timers (docs/decisions/0023-issued-serials-and-per-ca-revocation.md). */
/** The ACME server of the protocol-frontends service (issue 19, ADR 0053). */
export interface AcmeConfig {
  /** SERVICE_ACME_HTTP01_PORT: the port http-01 validation connects to (RFC 8555 8.3 says 80; tests use another). */
  http01Port: number;
  /** SERVICE_ACME_TLSALPN01_PORT: the port tls-alpn-01 validation connects to (RFC 8737 3 says 443). */
  tlsAlpn01Port: number;
  /** SERVICE_ACME_DNS_RESOLVERS: `host[:port]` resolvers dns-01 asks; empty: the system's. */
  dnsResolvers: string[];
  /** SERVICE_ACME_CAA_IDENTITIES: the issuer domain names CAA records name this CA by; empty: CAA is not checked. */
  caaIdentities: string[];
  /** SERVICE_ACME_NEW_ORDERS_PER_HOUR: new orders one ACME account may create per hour. */
  newOrdersPerHour: number;
  /** SERVICE_ACME_NEW_ACCOUNTS_PER_IP_PER_HOUR: new accounts one client address may create per hour. */
  newAccountsPerIpPerHour: number;
  /** SERVICE_ACME_NEW_ORDERS_PER_IP_PER_HOUR: new orders one client address may create per hour. */
  newOrdersPerIpPerHour: number;
  /** SERVICE_ACME_FAILED_VALIDATIONS_PER_HOUR: failed validations per account and identifier before new orders for it wait. */
  failedValidationsPerHour: number;
  /** SERVICE_ACME_CHALLENGE_ANSWER_WAIT_MS: how long a challenge response waits for the first validation attempt. */
  challengeAnswerWaitMs: number;
  /** SERVICE_ACME_RETENTION_DAYS: days ACME records are kept after they end; 0 keeps everything. */
  retentionDays: number;
  /** SERVICE_ACME_RETENTION_INTERVAL: how often the retention purge runs, in milliseconds. */
  retentionIntervalMs: number;
  /** SERVICE_ACME_ISSUER_ID: the issuer the default ACME profile issues with; undefined: issuance's default. */
  issuerId?: string;
  /** SERVICE_ACME_EAB_REQUIRED: newAccount needs an external account binding (RFC 8555 7.3.4). */
  externalAccountRequired: boolean;
  /** SERVICE_ACME_REVOCATION_EXPLANATION_URL: renewal-info's explanationURL of revoked certificates (RFC 9773 4.2). */
  revocationExplanationUrl?: string;
  /** SERVICE_ACME_TERMS_OF_SERVICE_URL: the directory's meta.termsOfService; new accounts must agree. */
  termsOfServiceUrl?: string;
  /** SERVICE_ACME_TERMS_OF_SERVICE_REAGREEMENT: accounts must agree to the current terms (RFC 8555 7.3.3). */
  termsOfServiceReagreement: boolean;
  /** SERVICE_ACME_WEBSITE_URL: the directory's meta.website. */
  websiteUrl?: string;
}

/** The SCEP server's records (ADR 0074). */
export interface ScepConfig {
  /** SERVICE_SCEP_RETENTION_DAYS: days SCEP transactions and expired certificates are kept; 0 keeps everything. */
  retentionDays: number;
  /** SERVICE_SCEP_RETENTION_INTERVAL: how often the retention purge runs, in milliseconds. */
  retentionIntervalMs: number;
}

export interface RevocationTimingConfig {
  crlSweepIntervalMs: number;
  /** A CRL is rebuilt once its nextUpdate is this close. */
  crlRefreshBeforeMs: number;
  ocspSweepIntervalMs: number;
  /** A cached OCSP response is re-signed once its nextUpdate is this close. */
  ocspRefreshBeforeMs: number;
  /** A delegated responder certificate is renewed this long before notAfter (or at two thirds of its life). */
  responderRenewBeforeMs: number;
  /** Where CRLs and pre-signed OCSP responses are published as files for plain-http servers (ADR 0038). */
  publishDir?: string;
  /** What the cache of signed OCSP responses may hold, in bytes (ADR 0039). */
  ocspCacheMaxBytes: number;
}

/** The validated configuration of one process. Built only by loadConfig. */
export interface CertlaneConfig {
  port: number;
  listenAddress: string;
  tls: { certPath: string; keyPath: string; requestClientCert: boolean };
  outboundTls: { caBundlePath?: string; insecureSkipVerify: boolean };
  database: { url: string; poolSize: number };
  nats: { servers: string[]; credentials?: NatsCredentials; namespace?: string; requestTimeoutMs: number };
  auth: {
    type: AuthType;
    secret?: string;
    namedKeys: NamedApiKey[];
    /** Gateway: how long an agent key's principal is cached (other credentials: 5 s). */
    agentPrincipalCacheTtlMs: number;
  };
  demoModeAck: boolean;
  demoSeed: boolean;
  /** SERVICE_KEYGEN_MODE: `agent` (jobs start in AwaitingCSR) or `server` (spec 1, ADR 0024). */
  keygenMode: KeygenMode;
  /** SERVICE_POLICY_SWEEP_INTERVAL: how often issuance re-evaluates every certificate against the policy rules (ADR 0028). */
  policySweepIntervalMs: number;
  /** SERVICE_RENEWAL_SWEEP_INTERVAL: how often issuance looks for certificates due for renewal (ADR 0028). */
  renewalSweepIntervalMs: number;
  /** SERVICE_CA_EXPIRY_ALERT_DAYS: the CA expiry warning thresholds, farthest first (ADR 0077). */
  caExpiryAlertDays: number[];
  /** SERVICE_NETWORK_ALLOW_CIDRS: reserved ranges the health monitor may still reach (ADR 0057); parsed by it. */
  networkAllowCidrs: string[];
  /** SERVICE_NOTIFICATION_RETRY_INTERVAL: the notifier's delivery sweep (spec 1, ADR 0056). */
  notificationRetryIntervalMs: number;
  /** SERVICE_NOTIFIER_ALLOWED_NETWORKS: reserved addresses notifier calls may still reach (ADR 0056). */
  notifierAllowedNetworks: string[];
  /** SERVICE_GUI_URL: the GUI's public base URL, for links in digest emails (no trailing slash). */
  guiUrl: string;
  /** SERVICE_DISCOVERY_CLOUD_INTERVAL: how often the health monitor scans each configured cloud secret manager (ADR 0063). */
  cloudDiscoveryIntervalMs: number;
  /** SERVICE_DISCOVERY_{AWS,AZURE,GCP}_*: the cloud accounts the `cloud-<provider>-sm` sentinels scan (ADR 0063). */
  cloudDiscovery: CloudDiscoveryConfig;
  configEncryptionKey: string;
  /** Public base URL of the revocation service (CRL DP and OCSP AIA of issued certificates), no trailing slash. */
  revocationBaseUrl: string;
  /** SERVICE_ISSUER_SCRIPTS_DIR: where a `script` issuer's commands must be (ADR 0082), no trailing slash. */
  issuerScriptsDirectory: string;
  revocation: RevocationTimingConfig;
  acme: AcmeConfig;
  scep: ScepConfig;
  corsOrigins: string[];
  bootstrapToken?: string;
  logLevel: LogLevel;
  maxRequestBodyBytes: number;
  /** SERVICE_GATEWAY_FAST_LANE: the gateway answers its hottest forwarding routes before Express. */
  gatewayFastLane: boolean;
  migrationsDir?: string;
  session: SessionConfig;
  oidc: OidcConfig;
  /** IPs/CIDRs of proxies whose X-Forwarded-For is believed; empty trusts none. */
  trustedProxies: string[];
  breakGlass: BreakGlassConfig;
  /** The issuance service's expiry loop (ADR 0024): how often it re-reads certificate dates. */
  expiry: { sweepIntervalMs: number };
  /**
   * The issuance service's stale-job reaper: a job Running this long without a change fails;
   * server-run issuance and renewal have the shorter `serverLeaseMs` and are queued again (ADR 0045).
   */
  jobs: { runningTimeoutMs: number; serverLeaseMs: number };
  unknownVariables: string[];
}
