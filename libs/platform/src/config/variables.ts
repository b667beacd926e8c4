/**
 * The catalogue of every SERVICE_* environment variable: name, default and meaning. The README's
 * configuration table is checked against this list by a test, and an unknown SERVICE_* variable
 * in the environment (a typo, usually) is reported at startup.
 */
export interface VariableSpec {
  name: string;
  default?: string;
  secret?: boolean;
  description: string;
}

export const CONFIG_VARIABLES: readonly VariableSpec[] = [
  { name: 'SERVICE_PORT', default: '8443', description: 'TLS port the process listens on.' },
  { name: 'SERVICE_LISTEN_ADDRESS', default: '0.0.0.0', description: 'Address the TLS listener binds to.' },
  {
    name: 'SERVICE_TLS_CERT_PATH',
    description: 'PEM server certificate (chain). Required. Reloaded on SIGHUP.',
  },
  {
    name: 'SERVICE_TLS_KEY_PATH',
    description: 'PEM private key of the server certificate. Required. Reloaded on SIGHUP.',
  },
  {
    name: 'SERVICE_TLS_REQUEST_CLIENT_CERT',
    default: 'false',
    description:
      'Whether the TLS listener asks clients for a certificate (never required or verified by the listener): turn it on where EST or SCEP mutual-TLS paths are served (`/.well-known/est-mtls/...`, `/scep-mtls`); off, those paths see no certificate and refuse. Off by default because browsers holding personal certificates then offer a certificate picker on the GUI (ADR 0061).',
  },
  {
    name: 'SERVICE_SERVER_CA_BUNDLE_PATH',
    description:
      'Extra PEM roots trusted by outbound TLS clients (NATS, Postgres, connectors), added to the system roots.',
  },
  {
    name: 'SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY',
    default: 'false',
    description:
      'Development only: outbound TLS clients skip certificate verification. Logs a warning at startup.',
  },
  {
    name: 'SERVICE_DATABASE_URL',
    default: 'postgres://postgres@127.0.0.1:5432/certlane',
    description: 'Postgres connection URL. Each service uses its own schema in this database.',
  },
  {
    name: 'SERVICE_DATABASE_POOL_SIZE',
    default: '10',
    description: 'Maximum Postgres connections per service process.',
  },
  {
    name: 'SERVICE_NATS_URL',
    default: 'nats://127.0.0.1:4222',
    description:
      'NATS server(s), comma-separated; JetStream must be enabled. `tls://` URLs use the outbound TLS settings. Credentials in the URL (`user:password@` or `token@`, the same on every entry) are passed as connect options.',
  },
  {
    name: 'SERVICE_NATS_NAMESPACE',
    default: '',
    description:
      'Optional prefix for every NATS subject and JetStream stream, so the subjects of several Certlane environments on one NATS cluster do not collide (a naming convention, not isolation).',
  },
  {
    name: 'SERVICE_BUS_REQUEST_TIMEOUT',
    default: '5s',
    description: 'How long a bus request waits for a reply before failing with upstream_timeout (504).',
  },
  {
    name: 'SERVICE_AUTH_TYPE',
    default: 'api-key',
    description: 'api-key, oidc or none. `jwt` and anything else are refused at startup.',
  },
  {
    name: 'SERVICE_AUTH_SECRET',
    secret: true,
    description:
      'Required in api-key mode: accepted as a bearer API key (compared by SHA-256 hash). At least 16 characters, not a placeholder.',
  },
  {
    name: 'SERVICE_API_KEYS_NAMED',
    secret: true,
    description:
      'Extra API keys defined in the environment: comma-separated `name:key:role[+role]` entries (name = actor id, key >= 16 characters, default role ids). Read by the gateway.',
  },
  {
    name: 'SERVICE_DEMO_MODE_ACK',
    default: 'false',
    description: 'Acknowledges demo use: allows auth type none, placeholder secrets and wildcard CORS.',
  },
  {
    name: 'SERVICE_DEMO_SEED',
    default: 'false',
    description: "Apply each service's demo seed at startup (the baseline seed always runs).",
  },
  {
    name: 'SERVICE_KEYGEN_MODE',
    default: 'agent',
    description:
      'Who generates certificate keys: `agent` (jobs wait in AwaitingCSR; the service never sees a private key) or `server`.',
  },
  {
    name: 'SERVICE_POLICY_SWEEP_INTERVAL',
    default: '1h',
    description:
      'Issuance: how often every certificate is re-evaluated against the enabled policy rules, in batches, one replica at a time (1s..24h).',
  },
  {
    name: 'SERVICE_NETWORK_ALLOW_CIDRS',
    default: '',
    description:
      'Health monitor: comma-separated CIDR ranges that health probes, scans and the SCEP probe may reach although they are reserved (loopback, link-local, cloud metadata); empty = none (ADR 0057).',
  },
  {
    name: 'SERVICE_DISCOVERY_CLOUD_INTERVAL',
    default: '6h',
    description:
      'Health monitor: how often each configured cloud secret manager is scanned for certificates (1m..168h), once across replicas (ADR 0063).',
  },
  {
    name: 'SERVICE_DISCOVERY_AWS_REGION',
    description:
      'Health monitor: AWS region of the Secrets Manager and ACM scan of the `cloud-aws-sm` sentinel; with the access key pair, turns it on.',
  },
  { name: 'SERVICE_DISCOVERY_AWS_ACCESS_KEY_ID', description: 'Health monitor: AWS access key id (SigV4).' },
  {
    name: 'SERVICE_DISCOVERY_AWS_SECRET_ACCESS_KEY',
    secret: true,
    description: 'Health monitor: AWS secret access key (SigV4 signing only; never sent).',
  },
  {
    name: 'SERVICE_DISCOVERY_AWS_ENDPOINT',
    description:
      'Health monitor: one endpoint for both AWS APIs instead of secretsmanager.<region>.amazonaws.com and acm.<region>.amazonaws.com (a local stand-in).',
  },
  {
    name: 'SERVICE_DISCOVERY_AZURE_VAULT_URL',
    description:
      'Health monitor: the Key Vault the `cloud-azure-sm` sentinel scans (https://<name>.vault.azure.net); with tenant, client id and secret, turns it on.',
  },
  {
    name: 'SERVICE_DISCOVERY_AZURE_TENANT_ID',
    description: 'Health monitor: Entra ID tenant of the Key Vault client.',
  },
  {
    name: 'SERVICE_DISCOVERY_AZURE_CLIENT_ID',
    description: 'Health monitor: the Key Vault client (OAuth client credentials).',
  },
  {
    name: 'SERVICE_DISCOVERY_AZURE_CLIENT_SECRET',
    secret: true,
    description: 'Health monitor: the Key Vault client secret (sent only to the token endpoint).',
  },
  {
    name: 'SERVICE_DISCOVERY_AZURE_AUTHORITY_URL',
    default: 'https://login.microsoftonline.com',
    description: 'Health monitor: the OAuth token authority for Key Vault.',
  },
  {
    name: 'SERVICE_DISCOVERY_GCP_PROJECT',
    description:
      'Health monitor: the Google Cloud project whose Secret Manager the `cloud-gcp-sm` sentinel scans; with the credentials file, turns it on.',
  },
  {
    name: 'SERVICE_DISCOVERY_GCP_CREDENTIALS_FILE',
    description:
      'Health monitor: a service-account key file (JSON: client_email, private_key, token_uri); the key signs the token request (JWT bearer) and is never sent.',
  },
  {
    name: 'SERVICE_DISCOVERY_GCP_ENDPOINT',
    default: 'https://secretmanager.googleapis.com',
    description: 'Health monitor: the Secret Manager API endpoint.',
  },
  {
    name: 'SERVICE_RENEWAL_SWEEP_INTERVAL',
    default: '1m',
    description:
      'Issuance: how often the renewal loop creates renewal jobs for certificates inside their renewal window, retries failed ones and sends expiry warnings (1s..1h).',
  },
  {
    name: 'SERVICE_CA_EXPIRY_ALERT_DAYS',
    default: '180,90,30,7,1',
    description:
      'Issuance: days before the end of a CA held here (active, or retired and still the signer of what it issued) at which the renewal loop announces `issuance.v1.ca.expiry-warning`, the `ca.expiring` notification; comma-separated distinct whole days, 1..3650 (ADR 0077).',
  },
  {
    name: 'SERVICE_CONFIG_ENCRYPTION_KEY',
    secret: true,
    description:
      'Key material for AES-256-GCM encryption of secret-bearing config at rest. Required, at least 32 characters, not a placeholder.',
  },
  {
    name: 'SERVICE_REVOCATION_BASE_URL',
    default: 'https://localhost:8443',
    description:
      'Public https base URL of the revocation service that issued certificates embed: CRL at <base>/crl/<issuer_id>/<ca_id>.crl (the signing CA), OCSP at <base>/ocsp/<issuer_id>. The quick start and start:services default it to https://localhost:<SERVICE_PORT>, where the gateway answers these paths.',
  },
  {
    name: 'SERVICE_ISSUER_SCRIPTS_DIR',
    default: '/etc/certlane/issuer-scripts',
    description:
      "Issuance: the directory a `script` issuer's `issue_command` and `revoke_command` must run from (an absolute path to a file in it, ADR 0082). Issuers are written through the API; what they may run is the operator's choice of files here.",
  },
  {
    name: 'SERVICE_REVOCATION_PUBLISH_DIR',
    default: '',
    description:
      'Revocation service: directory it publishes every signed CRL and the pre-signed RFC 5019 OCSP responses into, as files for a static plain-http web server (crl/<issuer_id>/<ca_id>.crl, ocsp/<issuer_id>/<base64 request>), each written beside and renamed. Empty: nothing is published.',
  },
  {
    name: 'SERVICE_ACME_HTTP01_PORT',
    default: '80',
    description:
      'ACME server (protocol-frontends): the port http-01 validation fetches http://<identifier>:<port>/.well-known/acme-challenge/<token> on. RFC 8555 8.3 says 80; tests point it at the port of the client under test.',
  },
  {
    name: 'SERVICE_ACME_TLSALPN01_PORT',
    default: '443',
    description:
      'ACME server (protocol-frontends): the port tls-alpn-01 validation (RFC 8737) connects to with ALPN acme-tls/1. RFC 8737 says 443; tests point it at the port of the client under test.',
  },
  {
    name: 'SERVICE_ACME_DNS_RESOLVERS',
    default: '',
    description:
      'ACME server (protocol-frontends): comma-separated resolvers (IP[:port], IPv6 in brackets) dns-01 validation asks for the _acme-challenge TXT record. Empty: the system resolvers.',
  },
  {
    name: 'SERVICE_ACME_NEW_ORDERS_PER_HOUR',
    default: '300',
    description:
      'ACME server (protocol-frontends): new orders one ACME account may create in any hour, counted across replicas; past it newOrder answers 429 rateLimited with Retry-After.',
  },
  {
    name: 'SERVICE_ACME_NEW_ACCOUNTS_PER_IP_PER_HOUR',
    default: '300',
    description:
      'ACME server (protocol-frontends): new accounts one client address may create in any hour, counted across replicas; past it newAccount answers 429 rateLimited with Retry-After. The address is the TCP peer or the X-Forwarded-For entry of SERVICE_TRUSTED_PROXIES.',
  },
  {
    name: 'SERVICE_ACME_NEW_ORDERS_PER_IP_PER_HOUR',
    default: '30000',
    description:
      'ACME server (protocol-frontends): new orders one client address may create in any hour, across its accounts and replicas; past it newOrder answers 429 rateLimited with Retry-After.',
  },
  {
    name: 'SERVICE_ACME_FAILED_VALIDATIONS_PER_HOUR',
    default: '5',
    description:
      'ACME server (protocol-frontends): failed validations one account may have for one identifier in any hour; past it newOrder for that identifier answers 429 rateLimited with Retry-After until the oldest failure is an hour old.',
  },
  {
    name: 'SERVICE_ACME_CHALLENGE_ANSWER_WAIT_MS',
    default: '2000',
    description:
      "ACME server (protocol-frontends): how long a client's challenge response (RFC 8555 7.5.1) waits for the validation's first attempt, so that it answers with the outcome and the next poll finds the authorization and order moved; a slower attempt goes on in the background and the answer says processing. While another authorization of the order is still pending the answer comes at once, so a client answering challenges one by one keeps its validations side by side. 0 answers processing at once. At most 30000.",
  },
  {
    name: 'SERVICE_ACME_RETENTION_DAYS',
    default: '90',
    description:
      'ACME server (protocol-frontends): how long records are kept after they end. An hourly purge on every replica removes orders that ended without a certificate once created this long ago, certificates (with their orders) this long after they expired, authorizations with their challenges this long after they expired once no kept order names them, and validation attempts this old. Open and processing orders and valid authorizations are never purged; the inventory, the audit trail and accounts are not touched. 0 keeps everything; otherwise at least 8 (an order lives 7 days), at most 36500.',
  },
  {
    name: 'SERVICE_ACME_RETENTION_INTERVAL',
    default: '1h',
    description:
      'ACME server (protocol-frontends): how often each replica runs the retention purge of SERVICE_ACME_RETENTION_DAYS (10s..24h); while a pass removes a whole batch (1000 records of a kind) the next runs at the following sweep, 10 s later.',
  },
  {
    name: 'SERVICE_SCEP_RETENTION_DAYS',
    default: '90',
    description:
      'SCEP server (protocol-frontends): how long records are kept. An hourly purge on every replica removes SCEP transactions that have not moved for this long (issued, rejected, or pending long after their approval expired; a resend of an older transactionID is then a new request) and forgets for GetCert the certificates that expired this long ago. The inventory and the audit trail are not touched. 0 keeps everything; otherwise at least 8 (an approval waits 7 days), at most 36500.',
  },
  {
    name: 'SERVICE_SCEP_RETENTION_INTERVAL',
    default: '1h',
    description:
      'SCEP server (protocol-frontends): how often each replica runs the retention purge of SERVICE_SCEP_RETENTION_DAYS (10s..24h); while a pass handles a whole batch (1000 records of a kind) the next runs 10 s later.',
  },
  {
    name: 'SERVICE_ACME_TERMS_OF_SERVICE_URL',
    default: '',
    description:
      'ACME server (protocol-frontends): the URL of the CA\'s terms of service, listed as meta.termsOfService in every directory (RFC 8555 7.1.1); a new account must then send termsOfServiceAgreed true, else newAccount answers 403 userActionRequired with Link rel="terms-of-service". Empty: no terms, no agreement asked.',
  },
  {
    name: 'SERVICE_ACME_TERMS_OF_SERVICE_REAGREEMENT',
    default: 'false',
    description:
      'ACME server (protocol-frontends): when true, an account that agreed to other terms than SERVICE_ACME_TERMS_OF_SERVICE_URL (or before the URL it agreed to was recorded) gets 403 userActionRequired on newOrder and finalize, with Link rel="terms-of-service" and the terms as instance (RFC 8555 7.3.3), until it posts termsOfServiceAgreed true to its account URL; its account object says termsOfServiceAgreed false meanwhile. False: one agreement, to any terms, stands.',
  },
  {
    name: 'SERVICE_ACME_WEBSITE_URL',
    default: '',
    description:
      'ACME server (protocol-frontends): a URL of a page about the CA, listed as meta.website in every directory (RFC 8555 7.1.1). Empty: not listed.',
  },
  {
    name: 'SERVICE_ACME_ISSUER_ID',
    default: '',
    description:
      "ACME server (protocol-frontends): the issuer the default ACME profile issues with (an issuer id of /api/v1/issuers). Empty: the issuance service's default issuer.",
  },
  {
    name: 'SERVICE_ACME_CAA_IDENTITIES',
    default: '',
    description:
      'ACME server (protocol-frontends): comma-separated issuer domain names CAA records (RFC 8659) name this CA by; the directory lists them as meta.caaIdentities and every dns identifier is checked against its CAA records (with RFC 8657 accounturi and validationmethods) through SERVICE_ACME_DNS_RESOLVERS. Empty: CAA is not checked.',
  },
  {
    name: 'SERVICE_ACME_EAB_REQUIRED',
    default: 'false',
    description:
      'ACME server (protocol-frontends): newAccount needs an external account binding (RFC 8555 7.3.4) made with an EAB key of /api/v1/admin/acme/eab-keys; the directory says externalAccountRequired. The account inherits the owner and team of the key.',
  },
  {
    name: 'SERVICE_ACME_REVOCATION_EXPLANATION_URL',
    default: '',
    description:
      'ACME server (protocol-frontends): an http(s) page a human can read about revoked certificates; renewal-info answers it as explanationURL (RFC 9773 4.2) for every revoked ACME certificate. Empty: no explanationURL for them.',
  },
  {
    name: 'SERVICE_CRL_SWEEP_INTERVAL',
    default: '1m',
    description: 'Revocation service: how often it looks for CRLs due for a rebuild (1s..1h).',
  },
  {
    name: 'SERVICE_CRL_REFRESH_BEFORE',
    default: '12h',
    description:
      'Revocation service: a CRL (valid 24h) is rebuilt once its nextUpdate is this close (1s..23h59m59s).',
  },
  {
    name: 'SERVICE_OCSP_SWEEP_INTERVAL',
    default: '30s',
    description:
      'Revocation service: how often cached OCSP responses and responder certificates due for renewal are renewed (1s..1h).',
  },
  {
    name: 'SERVICE_OCSP_REFRESH_BEFORE',
    default: '30m',
    description:
      'Revocation service: a cached OCSP response (valid 1h) is re-signed once its nextUpdate is this close (1s..59m59s).',
  },
  {
    name: 'SERVICE_OCSP_RESPONDER_RENEW_BEFORE',
    default: '24h',
    description:
      'Revocation service: a delegated OCSP responder certificate is renewed this long before it expires, or after two thirds of its life if that comes first (1m..720h).',
  },
  {
    name: 'SERVICE_OCSP_CACHE_MAX_BYTES',
    default: '33554432',
    description:
      'Revocation service: bytes its cache of signed OCSP responses (and of the requests that ask for them) may hold; the least recently used go first. Answers about serials never issued are not cached (1048576..1073741824).',
  },
  {
    name: 'SERVICE_CORS_ORIGINS',
    default: '',
    description:
      'Comma-separated browser origins allowed by CORS on the gateway. `*` is refused unless SERVICE_DEMO_MODE_ACK=true.',
  },
  {
    name: 'SERVICE_BOOTSTRAP_TOKEN',
    secret: true,
    description: 'One-shot day-0 token that mints the first admin key (used by the auth service).',
  },
  {
    name: 'SERVICE_SESSION_SAMESITE',
    default: 'Lax',
    description: 'SameSite attribute of the service_session and service_csrf cookies: Lax or Strict.',
  },
  {
    name: 'SERVICE_SESSION_SECRET',
    secret: true,
    description:
      'Secret(s) the session cookie signing keys are derived from (HKDF): comma-separated, each at least 32 characters; the first signs, all verify. Default: derived from SERVICE_CONFIG_ENCRYPTION_KEY.',
  },
  {
    name: 'SERVICE_SESSION_BIND_USER_AGENT',
    default: 'false',
    description:
      'Refuse a session cookie presented with a User-Agent other than the one it was created with.',
  },
  {
    name: 'SERVICE_AGENT_PRINCIPAL_CACHE_TTL',
    default: '5m',
    description:
      'Gateway: how long an agent key (role r-agent only) stays authenticated from the cache before auth is asked again (1s..1h). Revocation events and a NATS reconnect drop entries at once.',
  },
  {
    name: 'SERVICE_GATEWAY_FAST_LANE',
    default: 'true',
    description:
      'Gateway: answer the hottest forwarding routes (renewal policy get, agent heartbeat and work poll, certificate list) before Express and Nest, with the same authentication, checks and responses; agent heartbeats and polls travel to their services in batches under load. false sends every request through Nest.',
  },
  {
    name: 'SERVICE_JOB_RUNNING_TIMEOUT',
    default: '30m',
    description:
      'Issuance: a job left Running this long without a change (its worker lost: a crashed replica or agent) is failed, so the renewal loop can retry it (1s..24h).',
  },
  {
    name: 'SERVICE_JOB_SERVER_LEASE',
    default: '2m',
    description:
      'Issuance, server key generation: an issuance or renewal job the service runs itself and that stays Running this long (at most SERVICE_JOB_RUNNING_TIMEOUT) lost its worker, and is queued again while attempts remain (1s..1h).',
  },
  {
    name: 'SERVICE_SESSION_IDLE_TIMEOUT',
    default: '60m',
    description: 'A session unused for this long ends before its 8 h lifetime (1m..8h).',
  },
  {
    name: 'SERVICE_SESSION_GC_INTERVAL',
    default: '10m',
    description: 'How often the auth service deletes expired, idle and revoked sessions (1s..24h).',
  },
  // Notifier (ADR 0056).
  {
    name: 'SERVICE_NOTIFICATION_RETRY_INTERVAL',
    default: '2m',
    description:
      'Notifier: how often the delivery sweep sends pending notifications and retries failed ones whose backoff has passed (spec 1; 1s..1h).',
  },
  {
    name: 'SERVICE_NOTIFIER_ALLOWED_NETWORKS',
    default: '',
    description:
      'Notifier: comma-separated IPs or CIDRs that outbound notifier calls may reach although reserved (loopback, private, link-local, metadata). Default: none.',
  },
  {
    name: 'SERVICE_GUI_URL',
    default: 'https://localhost:8443',
    description:
      'Notifier: the public https base URL of the web GUI; links in digest emails point at <url>/certificates/<id> and <url>/approvals.',
  },
  // Inventory (ADR 0024).
  {
    name: 'SERVICE_EXPIRY_SWEEP_INTERVAL',
    default: '5m',
    description:
      'How often the issuance service moves certificates by their dates (Active -> Expiring -> Expired, Failed -> Expired) and rejects enrollment approvals pending past their deadline (1s..24h).',
  },
  {
    name: 'SERVICE_TRUSTED_PROXIES',
    default: '',
    description:
      'Comma-separated IPs or CIDRs of reverse proxies (an ingress controller) whose X-Forwarded-For api-gateway and protocol-frontends believe. Default: none (the client IP is the TCP peer).',
  },
  // OIDC sign-in (ADR 0081).
  {
    name: 'SERVICE_OIDC_PRELOGIN_REQUIRE_UA',
    default: 'true',
    description:
      'OIDC: the callback must come with the User-Agent its login started with, else the sign-in fails (prelogin_invalid).',
  },
  {
    name: 'SERVICE_OIDC_PRELOGIN_REQUIRE_IP',
    default: 'false',
    description:
      'OIDC: the callback must come from the client IP its login started from (off by default: mobile clients change address).',
  },
  {
    name: 'SERVICE_OIDC_BCL_MAX_AGE_SECONDS',
    default: '300',
    description:
      'OIDC back-channel logout: the oldest logout token (by its iat) accepted, in seconds (10..86400); older ones are refused.',
  },
  {
    name: 'SERVICE_BREAKGLASS_ENABLED',
    default: 'false',
    description: 'Enables break-glass password login and its admin routes; when false they all answer 404.',
  },
  {
    name: 'SERVICE_BREAKGLASS_LOCKOUT_THRESHOLD',
    default: '5',
    description:
      'Consecutive failed break-glass logins that lock a credential until an admin unlocks it (1..100).',
  },
  {
    name: 'SERVICE_LOG_LEVEL',
    default: 'info',
    description: 'trace, debug, info, warn, error or fatal. Logs are JSON lines with secrets redacted.',
  },
  {
    name: 'SERVICE_MAX_REQUEST_BODY_BYTES',
    default: '1048576',
    description: 'Largest accepted request body; larger requests get 413 payload_too_large.',
  },
  {
    name: 'SERVICE_MIGRATIONS_DIR',
    description:
      'Directory holding migrations/<service>/*.sql. Default: the nearest `migrations/` above the program.',
  },
  // The agent (apps/agent, ADR 0030) reads these, plus SERVICE_SERVER_URL,
  // SERVICE_SERVER_CA_BUNDLE_PATH, SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY and SERVICE_LOG_LEVEL;
  // the services do not use them.
  {
    name: 'SERVICE_SERVER_URL',
    description:
      'Agent and MCP server: https:// URL of the API gateway. Required; an http:// URL is refused at startup.',
  },
  // The MCP server (apps/mcp-server, ADR 0051, 0054) reads these, plus SERVICE_SERVER_URL and
  // SERVICE_SERVER_CA_BUNDLE_PATH.
  {
    name: 'SERVICE_API_KEY',
    secret: true,
    description:
      'MCP server over stdio only: the API key it calls the API with (role r-mcp), or use SERVICE_API_KEY_FILE.',
  },
  {
    name: 'SERVICE_API_KEY_FILE',
    description: 'MCP server only: file holding its API key (preferred: it stays out of the environment).',
  },
  {
    name: 'SERVICE_MCP_TRANSPORT',
    default: 'stdio',
    description:
      "MCP server only: stdio (one assistant, the configured key) or http (Streamable HTTP over TLS 1.3, each session with the caller's own bearer key).",
  },
  {
    name: 'SERVICE_MCP_TOOL_SETS',
    default: 'main,est',
    description:
      'MCP server only: the tool sets it lists, comma-separated: main (every non-EST operation), est.',
  },
  {
    name: 'SERVICE_MCP_LISTEN_ADDRESS',
    default: '127.0.0.1',
    description: 'MCP server, http transport: address the TLS listener binds to.',
  },
  { name: 'SERVICE_MCP_PORT', default: '8444', description: 'MCP server, http transport: TLS port of /mcp.' },
  {
    name: 'SERVICE_MCP_TLS_CERT_PATH',
    description:
      'MCP server, http transport: PEM certificate (chain) of its listener. Required there; reloaded on SIGHUP.',
  },
  {
    name: 'SERVICE_MCP_TLS_KEY_PATH',
    description:
      'MCP server, http transport: PEM private key of its listener. Required there; reloaded on SIGHUP.',
  },
  {
    name: 'SERVICE_MCP_MAX_SESSIONS',
    default: '64',
    description: 'MCP server, http transport: open sessions at most; one more initialize gets 503.',
  },
  {
    name: 'SERVICE_MCP_SESSION_IDLE_TIMEOUT_SECONDS',
    default: '1800',
    description: 'MCP server, http transport: a session without a request for this long is closed.',
  },
  {
    name: 'SERVICE_MCP_ALLOWED_ORIGINS',
    default: '',
    description:
      'MCP server, http transport: comma-separated browser origins (scheme://host[:port]) allowed to call /mcp; a request carrying any other Origin header gets 403 (DNS rebinding defense). Requests without Origin (assistants that are not browsers) are not affected.',
  },
  { name: 'SERVICE_AGENT_ID', description: 'Agent only: the id the agent was registered with. Required.' },
  {
    name: 'SERVICE_AGENT_API_KEY',
    secret: true,
    description:
      'Agent only: the API key returned once by the registration (or use SERVICE_AGENT_API_KEY_FILE).',
  },
  {
    name: 'SERVICE_AGENT_API_KEY_FILE',
    description:
      'Agent only: file holding the API key (preferred over the variable: it stays out of the environment).',
  },
  {
    name: 'SERVICE_AGENT_STATE_DIR',
    default: '/var/lib/certlane-agent',
    description: 'Agent only: where the agent keeps its private keys (directories 0700, files 0600).',
  },
  {
    name: 'SERVICE_AGENT_TARGETS_FILE',
    description:
      'Agent only: JSON object mapping target ids to {type, config, endpoint} for deployments (default targets.json in the state dir).',
  },
  {
    name: 'SERVICE_AGENT_POLL_INTERVAL_SECONDS',
    default: '30',
    description: 'Agent only: work poll interval (jittered by +-20%).',
  },
  {
    name: 'SERVICE_AGENT_HEARTBEAT_INTERVAL_SECONDS',
    default: '60',
    description: 'Agent only: heartbeat interval (jittered by +-20%).',
  },
  {
    name: 'SERVICE_AGENT_BACKOFF_MAX_SECONDS',
    default: '300',
    description: 'Agent only: cap of the exponential backoff after failed calls.',
  },
  {
    name: 'SERVICE_AGENT_DISCOVERY_PATHS',
    default: '',
    description:
      'Agent only: absolute directories, separated by `:`, walked for certificate files (PEM, DER, PKCS#12, JKS) whose certificates are pushed to the discovery endpoint; empty = off (ADR 0063).',
  },
  {
    name: 'SERVICE_AGENT_DISCOVERY_INTERVAL_SECONDS',
    default: '21600',
    description: 'Agent only: filesystem discovery interval (60 to 604800), jittered by +-20%.',
  },
  {
    name: 'SERVICE_AGENT_DISCOVERY_PKCS12_PASSWORDS_FILE',
    description:
      'Agent only: file with one password a line, tried on PKCS#12 files whose certificates are encrypted; never sent or logged.',
  },
  {
    name: 'SERVICE_DATA_DIR',
    default: '.certlane-data',
    description:
      'Quick start only: where generated secrets, the TLS certificate and embedded Postgres data live.',
  },
  {
    name: 'SERVICE_EMBEDDED_POSTGRES_PORT',
    default: '54329',
    description:
      'Quick start only: port of the embedded Postgres (used when SERVICE_DATABASE_URL is not set).',
  },
];

export const KNOWN_VARIABLE_NAMES: ReadonlySet<string> = new Set(CONFIG_VARIABLES.map((v) => v.name));
