import { validServiceEnv } from '@certlane/testing';
import { ConfigError } from './config-error';
import { Env, isPlaceholderSecret, loadConfig } from './load-config';
import { CONFIG_VARIABLES } from './variables';

/** A real-looking (non-placeholder) value of the given length. */
const realSecret = (length: number) => 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0'.repeat(4).slice(0, length);

/** Runs loadConfig and returns the ConfigError it throws; fails the test if it throws nothing else. */
function refusal(env: Env): ConfigError {
  let thrown: unknown;
  try {
    loadConfig(env);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ConfigError);
  const error = thrown as ConfigError;
  expect(error.name).toBe('ConfigError');
  expect(error.message).not.toMatch(/[\r\n]/);
  expect(error.message.length).toBeGreaterThan(0);
  return error;
}

describe(loadConfig.name, () => {
  describe('SERVICE_AUTH_TYPE', () => {
    it('refuses jwt and points the operator to an authenticating gateway and auth type none', () => {
      const error = refusal(validServiceEnv({ SERVICE_AUTH_TYPE: 'jwt' }));
      expect(error.message).toMatch(/^SERVICE_AUTH_TYPE=jwt is not supported/);
      expect(error.message).toContain('gateway');
      expect(error.message).toContain('SERVICE_AUTH_TYPE=none');
    });

    it('refuses jwt whatever its case or surrounding spaces', () => {
      expect(refusal(validServiceEnv({ SERVICE_AUTH_TYPE: ' JWT ' })).message).toContain('gateway');
    });

    it('refuses saml as not valid and lists the valid types', () => {
      const error = refusal(validServiceEnv({ SERVICE_AUTH_TYPE: 'saml' }));
      expect(error.message).toContain('SERVICE_AUTH_TYPE="saml" is not valid');
      expect(error.message).toContain('api-key');
      expect(error.message).toContain('none');
    });

    it('refuses none without SERVICE_DEMO_MODE_ACK=true', () => {
      const error = refusal(validServiceEnv({ SERVICE_AUTH_TYPE: 'none' }));
      expect(error.message).toContain('SERVICE_AUTH_TYPE=none');
      expect(error.message).toContain('SERVICE_DEMO_MODE_ACK=true');
    });

    it('refuses none when SERVICE_DEMO_MODE_ACK is explicitly false', () => {
      refusal(validServiceEnv({ SERVICE_AUTH_TYPE: 'none', SERVICE_DEMO_MODE_ACK: 'false' }));
    });

    it('accepts none with SERVICE_DEMO_MODE_ACK=true and needs no auth secret then', () => {
      const config = loadConfig(
        validServiceEnv({
          SERVICE_AUTH_TYPE: 'none',
          SERVICE_DEMO_MODE_ACK: 'true',
          SERVICE_AUTH_SECRET: undefined,
        }),
      );
      expect(config.auth).toEqual({
        type: 'none',
        secret: undefined,
        namedKeys: [],
        agentPrincipalCacheTtlMs: 300_000,
      });
      expect(config.demoModeAck).toBe(true);
    });

    it('accepts oidc without an auth secret', () => {
      expect(
        loadConfig(validServiceEnv({ SERVICE_AUTH_TYPE: 'oidc', SERVICE_AUTH_SECRET: undefined })).auth.type,
      ).toBe('oidc');
    });
  });

  describe('TLS paths', () => {
    it('refuses a missing SERVICE_TLS_CERT_PATH', () => {
      const error = refusal(validServiceEnv({ SERVICE_TLS_CERT_PATH: undefined }));
      expect(error.message).toMatch(/^SERVICE_TLS_CERT_PATH is required/);
    });

    it('refuses a blank SERVICE_TLS_CERT_PATH', () => {
      expect(refusal(validServiceEnv({ SERVICE_TLS_CERT_PATH: '   ' })).message).toMatch(
        /^SERVICE_TLS_CERT_PATH is required/,
      );
    });

    it('refuses a missing SERVICE_TLS_KEY_PATH', () => {
      const error = refusal(validServiceEnv({ SERVICE_TLS_KEY_PATH: '' }));
      expect(error.message).toMatch(/^SERVICE_TLS_KEY_PATH is required/);
    });
  });

  describe('SERVICE_AUTH_SECRET', () => {
    it('is required in api-key mode, the default', () => {
      const error = refusal(validServiceEnv({ SERVICE_AUTH_SECRET: undefined }));
      expect(error.message).toBe('SERVICE_AUTH_SECRET is required when SERVICE_AUTH_TYPE=api-key');
    });

    it('refuses a secret one character shorter than 16 and accepts exactly 16', () => {
      const short = realSecret(15);
      const error = refusal(validServiceEnv({ SERVICE_AUTH_SECRET: short }));
      expect(error.message).toContain('SERVICE_AUTH_SECRET must be at least 16 characters');
      expect(error.message).not.toContain(short);
      expect(loadConfig(validServiceEnv({ SERVICE_AUTH_SECRET: realSecret(16) })).auth.secret).toBe(
        realSecret(16),
      );
    });

    it('holds a secret set in oidc mode to the same 16 characters: it is an admin bearer key there too', () => {
      const error = refusal(
        validServiceEnv({ SERVICE_AUTH_TYPE: 'oidc', SERVICE_AUTH_SECRET: realSecret(15) }),
      );
      expect(error.message).toContain('SERVICE_AUTH_SECRET must be at least 16 characters');
      expect(
        loadConfig(validServiceEnv({ SERVICE_AUTH_TYPE: 'oidc', SERVICE_AUTH_SECRET: realSecret(16) })).auth
          .type,
      ).toBe('oidc');
    });

    it('refuses a bootstrap token shorter than 16 characters or a placeholder, without echoing it', () => {
      const short = realSecret(15);
      const error = refusal(validServiceEnv({ SERVICE_BOOTSTRAP_TOKEN: short }));
      expect(error.message).toBe('SERVICE_BOOTSTRAP_TOKEN must be at least 16 characters');
      const placeholder = refusal(validServiceEnv({ SERVICE_BOOTSTRAP_TOKEN: 'changeme-changeme-changeme' }));
      expect(placeholder.message).toMatch(/^SERVICE_BOOTSTRAP_TOKEN is a placeholder value/);
      expect(placeholder.message).not.toContain('changeme-changeme-changeme');
      expect(loadConfig(validServiceEnv({ SERVICE_BOOTSTRAP_TOKEN: realSecret(16) })).bootstrapToken).toBe(
        realSecret(16),
      );
    });

    it('refuses a placeholder secret without echoing it', () => {
      const error = refusal(validServiceEnv({ SERVICE_AUTH_SECRET: 'change-me-please-now' }));
      expect(error.message).toMatch(/^SERVICE_AUTH_SECRET is a placeholder value/);
      expect(error.message).not.toContain('change-me-please-now');
    });

    it.each(['CHANGEME_CHANGEME_1', 'replace-me-with-a-key', 'xxxxxxxxxxxxxxxxxxxx', '12345678901234567890'])(
      'refuses the placeholder %s',
      (secret) => {
        expect(refusal(validServiceEnv({ SERVICE_AUTH_SECRET: secret })).message).toContain('placeholder');
      },
    );

    it('accepts a placeholder secret with SERVICE_DEMO_MODE_ACK=true', () => {
      const config = loadConfig(
        validServiceEnv({ SERVICE_AUTH_SECRET: 'change-me-please-now', SERVICE_DEMO_MODE_ACK: 'true' }),
      );
      expect(config.auth).toEqual({
        type: 'api-key',
        secret: 'change-me-please-now',
        namedKeys: [],
        agentPrincipalCacheTtlMs: 300_000,
      });
    });

    it('refuses a short secret even with SERVICE_DEMO_MODE_ACK=true', () => {
      refusal(validServiceEnv({ SERVICE_AUTH_SECRET: 'changeme', SERVICE_DEMO_MODE_ACK: 'true' }));
    });
  });

  describe('SERVICE_CONFIG_ENCRYPTION_KEY', () => {
    const placeholderKey = 'change-me-change-me-change-me-change-me';

    it('is required', () => {
      expect(refusal(validServiceEnv({ SERVICE_CONFIG_ENCRYPTION_KEY: undefined })).message).toMatch(
        /^SERVICE_CONFIG_ENCRYPTION_KEY is required/,
      );
    });

    it('refuses a placeholder key without echoing it', () => {
      const error = refusal(validServiceEnv({ SERVICE_CONFIG_ENCRYPTION_KEY: placeholderKey }));
      expect(error.message).toMatch(/^SERVICE_CONFIG_ENCRYPTION_KEY is a placeholder value/);
      expect(error.message).not.toContain(placeholderKey);
    });

    it('accepts a placeholder key with SERVICE_DEMO_MODE_ACK=true', () => {
      const config = loadConfig(
        validServiceEnv({ SERVICE_CONFIG_ENCRYPTION_KEY: placeholderKey, SERVICE_DEMO_MODE_ACK: 'true' }),
      );
      expect(config.configEncryptionKey).toBe(placeholderKey);
    });

    it('refuses a key of 31 characters even with SERVICE_DEMO_MODE_ACK=true, and accepts 32', () => {
      const error = refusal(
        validServiceEnv({ SERVICE_CONFIG_ENCRYPTION_KEY: realSecret(31), SERVICE_DEMO_MODE_ACK: 'true' }),
      );
      expect(error.message).toBe('SERVICE_CONFIG_ENCRYPTION_KEY must be at least 32 characters');
      expect(
        loadConfig(validServiceEnv({ SERVICE_CONFIG_ENCRYPTION_KEY: realSecret(32) })).configEncryptionKey,
      ).toBe(realSecret(32));
    });
  });

  describe('SERVICE_CORS_ORIGINS', () => {
    it('refuses the wildcard without SERVICE_DEMO_MODE_ACK=true', () => {
      const error = refusal(validServiceEnv({ SERVICE_CORS_ORIGINS: '*' }));
      expect(error.message).toMatch(/^SERVICE_CORS_ORIGINS contains the wildcard/);
    });

    it('refuses a wildcard hidden in a list', () => {
      refusal(validServiceEnv({ SERVICE_CORS_ORIGINS: 'https://a.example.com, *' }));
    });

    it('accepts the wildcard with SERVICE_DEMO_MODE_ACK=true', () => {
      expect(
        loadConfig(validServiceEnv({ SERVICE_CORS_ORIGINS: '*', SERVICE_DEMO_MODE_ACK: 'true' })).corsOrigins,
      ).toEqual(['*']);
    });

    it('accepts a comma-separated list of origins, trimming spaces and empty entries', () => {
      expect(
        loadConfig(
          validServiceEnv({ SERVICE_CORS_ORIGINS: ' https://a.example.com ,, http://localhost:4200 ' }),
        ).corsOrigins,
      ).toEqual(['https://a.example.com', 'http://localhost:4200']);
    });

    it.each([
      'certs.example.com',
      'https://certs.example.com/',
      'https://certs.example.com/path',
      'ftp://x.example',
    ])('refuses the malformed origin %s and quotes it', (origin) => {
      const error = refusal(validServiceEnv({ SERVICE_CORS_ORIGINS: origin }));
      expect(error.message).toContain(`SERVICE_CORS_ORIGINS entry ${JSON.stringify(origin)}`);
    });
  });

  describe('sessions, trusted proxies and break-glass', () => {
    it('defaults to SameSite Lax, no UA binding, 60 m idle, 10 m GC, no proxies, break-glass off at 5', () => {
      const config = loadConfig(validServiceEnv());
      expect(config).toMatchObject({
        session: {
          sameSite: 'Lax',
          dedicatedSecret: false,
          bindUserAgent: false,
          idleTimeoutMs: 3_600_000,
          gcIntervalMs: 600_000,
        },
        trustedProxies: [],
        breakGlass: { enabled: false, lockoutThreshold: 5 },
      });
      expect(config.session.secrets).toEqual([config.configEncryptionKey]);
    });

    it('accepts Lax and Strict in any case and refuses None or anything else', () => {
      expect(loadConfig(validServiceEnv({ SERVICE_SESSION_SAMESITE: 'strict' })).session.sameSite).toBe(
        'Strict',
      );
      expect(loadConfig(validServiceEnv({ SERVICE_SESSION_SAMESITE: ' LAX ' })).session.sameSite).toBe('Lax');
      for (const value of ['None', 'none', 'lax;', 'true']) {
        expect(refusal(validServiceEnv({ SERVICE_SESSION_SAMESITE: value })).message).toBe(
          `SERVICE_SESSION_SAMESITE=${JSON.stringify(value)} is not valid: use Lax or Strict`,
        );
      }
    });

    it('takes SERVICE_SESSION_SECRET as a list of secrets of at least 32 characters, not placeholders', () => {
      const [first, second] = [realSecret(32), realSecret(40)];
      expect(
        loadConfig(validServiceEnv({ SERVICE_SESSION_SECRET: `${first}, ${second}` })).session,
      ).toMatchObject({
        secrets: [first, second],
        dedicatedSecret: true,
      });
      expect(refusal(validServiceEnv({ SERVICE_SESSION_SECRET: realSecret(31) })).message).toContain(
        'at least 32 characters',
      );
      const placeholder = `changeme-${realSecret(32)}`;
      const error = refusal(validServiceEnv({ SERVICE_SESSION_SECRET: placeholder }));
      expect(error.message).toContain('placeholder');
      expect(error.message).not.toContain(placeholder);
    });

    it('bounds the agent principal cache TTL to 1s..1h, 5m by default', () => {
      expect(loadConfig(validServiceEnv()).auth.agentPrincipalCacheTtlMs).toBe(300_000);
      expect(
        loadConfig(validServiceEnv({ SERVICE_AGENT_PRINCIPAL_CACHE_TTL: '30s' })).auth
          .agentPrincipalCacheTtlMs,
      ).toBe(30_000);
      for (const raw of ['500ms', '1h1s', 'soon']) {
        expect(() => loadConfig(validServiceEnv({ SERVICE_AGENT_PRINCIPAL_CACHE_TTL: raw }))).toThrow(
          /SERVICE_AGENT_PRINCIPAL_CACHE_TTL/,
        );
      }
    });

    it('bounds the idle timeout to 1m..8h and the GC interval to 1s..24h', () => {
      expect(loadConfig(validServiceEnv({ SERVICE_SESSION_IDLE_TIMEOUT: '8h' })).session.idleTimeoutMs).toBe(
        8 * 3_600_000,
      );
      expect(refusal(validServiceEnv({ SERVICE_SESSION_IDLE_TIMEOUT: '59s' })).message).toBe(
        'SERVICE_SESSION_IDLE_TIMEOUT must be between 1m and 8h',
      );
      refusal(validServiceEnv({ SERVICE_SESSION_IDLE_TIMEOUT: '8h1m' }));
      refusal(validServiceEnv({ SERVICE_SESSION_IDLE_TIMEOUT: '30' }));
      expect(loadConfig(validServiceEnv({ SERVICE_SESSION_GC_INTERVAL: '1s' })).session.gcIntervalMs).toBe(
        1000,
      );
      refusal(validServiceEnv({ SERVICE_SESSION_GC_INTERVAL: '999ms' }));
      refusal(validServiceEnv({ SERVICE_SESSION_GC_INTERVAL: '25h' }));
    });

    // Inventory (ADR 0024).
    it('defaults the expiry sweep interval to 5m and bounds it to 1s..24h', () => {
      expect(loadConfig(validServiceEnv()).expiry.sweepIntervalMs).toBe(300_000);
      expect(
        loadConfig(validServiceEnv({ SERVICE_EXPIRY_SWEEP_INTERVAL: '1s' })).expiry.sweepIntervalMs,
      ).toBe(1000);
      expect(refusal(validServiceEnv({ SERVICE_EXPIRY_SWEEP_INTERVAL: '999ms' })).message).toBe(
        'SERVICE_EXPIRY_SWEEP_INTERVAL must be between 1s and 24h',
      );
      refusal(validServiceEnv({ SERVICE_EXPIRY_SWEEP_INTERVAL: '25h' }));
      refusal(validServiceEnv({ SERVICE_EXPIRY_SWEEP_INTERVAL: '5' }));
    });

    it('parses the UA binding and break-glass settings', () => {
      const config = loadConfig(
        validServiceEnv({
          SERVICE_SESSION_BIND_USER_AGENT: 'true',
          SERVICE_BREAKGLASS_ENABLED: 'yes',
          SERVICE_BREAKGLASS_LOCKOUT_THRESHOLD: '10',
        }),
      );
      expect(config.session.bindUserAgent).toBe(true);
      expect(config.breakGlass).toEqual({ enabled: true, lockoutThreshold: 10 });
      refusal(validServiceEnv({ SERVICE_BREAKGLASS_LOCKOUT_THRESHOLD: '0' }));
      refusal(validServiceEnv({ SERVICE_BREAKGLASS_LOCKOUT_THRESHOLD: '101' }));
      refusal(validServiceEnv({ SERVICE_BREAKGLASS_ENABLED: 'maybe' }));
    });

    it('accepts IPs, CIDRs and the loopback/linklocal/uniquelocal names as trusted proxies', () => {
      const value = '10.0.0.1, 192.168.0.0/16,fd00::/8, ::1, loopback';
      expect(loadConfig(validServiceEnv({ SERVICE_TRUSTED_PROXIES: value })).trustedProxies).toEqual([
        '10.0.0.1',
        '192.168.0.0/16',
        'fd00::/8',
        '::1',
        'loopback',
      ]);
    });

    it.each(['proxy.example.com', '10.0.0.0/33', '10.0.0.1/8/2', '::1/129', '300.1.1.1', '10.0.0.0/'])(
      'refuses %s as a trusted proxy',
      (entry) => {
        expect(refusal(validServiceEnv({ SERVICE_TRUSTED_PROXIES: entry })).message).toBe(
          `SERVICE_TRUSTED_PROXIES entry ${JSON.stringify(entry)} is not an IP address or CIDR like 10.0.0.0/8`,
        );
      },
    );
  });

  describe('malformed values', () => {
    it.each([
      ['SERVICE_PORT', '0'],
      ['SERVICE_PORT', '65536'],
      ['SERVICE_PORT', 'https'],
      ['SERVICE_PORT', '8443.5'],
      ['SERVICE_PORT', '0x20FB'],
      ['SERVICE_DATABASE_POOL_SIZE', '0'],
      ['SERVICE_DATABASE_POOL_SIZE', '201'],
      ['SERVICE_MAX_REQUEST_BODY_BYTES', '1023'],
      ['SERVICE_DEMO_MODE_ACK', 'sure'],
      ['SERVICE_DEMO_SEED', 'maybe'],
      ['SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY', 'y'],
      ['SERVICE_BUS_REQUEST_TIMEOUT', '5'],
      ['SERVICE_BUS_REQUEST_TIMEOUT', '5 seconds'],
      ['SERVICE_LOG_LEVEL', 'verbose'],
      ['SERVICE_NATS_URL', 'http://127.0.0.1:4222'],
      ['SERVICE_NATS_URL', 'nats://a:4222,127.0.0.1:4222'],
      ['SERVICE_DATABASE_URL', 'mysql://root@127.0.0.1/certlane'],
      ['SERVICE_DATABASE_URL', '127.0.0.1:5432'],
      ['SERVICE_NATS_NAMESPACE', 'prod.certlane'],
      ['SERVICE_NATS_NAMESPACE', 'n'.repeat(65)],
    ])('refuses %s=%s and names the variable', (name, value) => {
      const error = refusal(validServiceEnv({ [name]: value }));
      expect(error.message.startsWith(name)).toBe(true);
    });

    it('quotes the offending raw value of a malformed port', () => {
      expect(refusal(validServiceEnv({ SERVICE_PORT: 'https' })).message).toBe(
        'SERVICE_PORT="https" must be an integer between 1 and 65535',
      );
    });

    // Regression: a list of only separators parses to no server at all, and the NATS client
    // then silently falls back to its own default (localhost:4222).
    it('refuses a SERVICE_NATS_URL that names no server', () => {
      expect(refusal(validServiceEnv({ SERVICE_NATS_URL: ' , ' })).message).toMatch(/^SERVICE_NATS_URL/);
    });

    it('keeps a value holding a line break on one line', () => {
      expect(refusal(validServiceEnv({ SERVICE_LOG_LEVEL: 'info\nfatal' })).message).toContain(
        '"info\\nfatal"',
      );
    });
  });

  describe('accepted values', () => {
    it('applies the defaults of the variables table', () => {
      const config = loadConfig(validServiceEnv());
      expect(config).toMatchObject({
        port: 8443,
        listenAddress: '0.0.0.0',
        outboundTls: { caBundlePath: undefined, insecureSkipVerify: false },
        database: { url: 'postgres://postgres@127.0.0.1:5432/certlane', poolSize: 10 },
        nats: { servers: ['nats://127.0.0.1:4222'], namespace: undefined, requestTimeoutMs: 5000 },
        auth: { type: 'api-key' },
        demoModeAck: false,
        demoSeed: false,
        keygenMode: 'agent',
        corsOrigins: [],
        bootstrapToken: undefined,
        logLevel: 'info',
        maxRequestBodyBytes: 1048576,
        migrationsDir: undefined,
        unknownVariables: [],
      });
    });

    it('keeps every default of the table in agreement with loadConfig', () => {
      const defaults = Object.fromEntries(CONFIG_VARIABLES.map((v) => [v.name, v.default]));
      expect(defaults).toMatchObject({
        SERVICE_PORT: '8443',
        SERVICE_AUTH_TYPE: 'api-key',
        SERVICE_LOG_LEVEL: 'info',
        SERVICE_BUS_REQUEST_TIMEOUT: '5s',
      });
      const base = validServiceEnv();
      const fromTable = loadConfig(base);
      const explicit = loadConfig({
        ...base,
        ...Object.fromEntries(
          CONFIG_VARIABLES.filter((v) => v.default !== undefined).map((v) => [v.name, v.default as string]),
        ),
      });
      expect(explicit).toEqual(fromTable);
    });

    it('treats an empty variable as unset', () => {
      expect(loadConfig(validServiceEnv({ SERVICE_PORT: '', SERVICE_AUTH_TYPE: '' }))).toMatchObject({
        port: 8443,
        auth: { type: 'api-key' },
      });
    });

    it('parses explicit values', () => {
      const config = loadConfig(
        validServiceEnv({
          SERVICE_PORT: '9443',
          SERVICE_AUTH_TYPE: 'API-KEY',
          SERVICE_LOG_LEVEL: 'WARN',
          SERVICE_BUS_REQUEST_TIMEOUT: '1m30s',
          SERVICE_NATS_URL: 'nats://a:4222, tls://b:4222',
          SERVICE_NATS_NAMESPACE: 'team_a-1',
          SERVICE_DATABASE_URL: 'postgresql://u@db:5432/x',
          SERVICE_SERVER_TLS_INSECURE_SKIP_VERIFY: 'yes',
          SERVICE_DEMO_SEED: '1',
        }),
      );
      expect(config).toMatchObject({
        port: 9443,
        auth: { type: 'api-key' },
        logLevel: 'warn',
        nats: { servers: ['nats://a:4222', 'tls://b:4222'], namespace: 'team_a-1', requestTimeoutMs: 90_000 },
        database: { url: 'postgresql://u@db:5432/x' },
        outboundTls: { insecureSkipVerify: true },
        demoSeed: true,
      });
    });

    it('reports unknown SERVICE_ variables and ignores other variables', () => {
      const config = loadConfig(
        validServiceEnv({
          SERVICE_PROT: '9443',
          SERVICE_LOGLEVEL: 'debug',
          HOME: '/root',
          service_port: '1',
        }),
      );
      expect(config.unknownVariables.sort()).toEqual(['SERVICE_LOGLEVEL', 'SERVICE_PROT']);
    });

    it('knows the quick start variables', () => {
      expect(
        loadConfig(validServiceEnv({ SERVICE_DATA_DIR: '/data', SERVICE_EMBEDDED_POSTGRES_PORT: '5555' }))
          .unknownVariables,
      ).toEqual([]);
    });
  });
});

describe(isPlaceholderSecret.name, () => {
  it.each([
    'changeme',
    'change-me-please-now',
    'CHANGE_ME',
    'replace_me',
    'placeholder',
    '<your key>',
    'your-secret',
    '0000',
    'xxxx',
    'test',
    'my-changeme-value',
  ])('treats %s as a placeholder', (value) => {
    expect(isPlaceholderSecret(value)).toBe(true);
  });

  it.each([realSecret(32), 'f3b1c9e07a6d4c21b8e5a0d9c7f2e4b6', 'correct horse battery staple'])(
    'accepts the real-looking secret %s',
    (value) => {
      expect(isPlaceholderSecret(value)).toBe(false);
    },
  );

  // Regression: the `1234.*` alternative of PLACEHOLDER refuses one real `openssl rand -hex 32`
  // key in 65536 (every one that happens to start with 1234).
  it('accepts a random hex key that happens to start with 1234', () => {
    expect(isPlaceholderSecret('1234f3b1c9e07a6d4c21b8e5a0d9c7f2e4b6a1d0c3e5f7a9b2c4d6e8f0a1b3c5')).toBe(
      false,
    );
  });

  describe('SERVICE_POLICY_SWEEP_INTERVAL and SERVICE_RENEWAL_SWEEP_INTERVAL', () => {
    it('default to 1h and 1m', () => {
      expect(loadConfig(validServiceEnv())).toMatchObject({
        policySweepIntervalMs: 3_600_000,
        renewalSweepIntervalMs: 60_000,
      });
    });

    it('accept durations within bounds and refuse others', () => {
      const config = loadConfig(
        validServiceEnv({ SERVICE_POLICY_SWEEP_INTERVAL: '5s', SERVICE_RENEWAL_SWEEP_INTERVAL: '1s' }),
      );
      expect(config).toMatchObject({ policySweepIntervalMs: 5000, renewalSweepIntervalMs: 1000 });
      expect(refusal(validServiceEnv({ SERVICE_POLICY_SWEEP_INTERVAL: '25h' })).message).toContain(
        'SERVICE_POLICY_SWEEP_INTERVAL',
      );
      expect(refusal(validServiceEnv({ SERVICE_RENEWAL_SWEEP_INTERVAL: '2h' })).message).toContain(
        'SERVICE_RENEWAL_SWEEP_INTERVAL',
      );
    });
  });

  describe('SERVICE_CA_EXPIRY_ALERT_DAYS', () => {
    it('defaults to half a year, 90, 30, 7 days and the last day', () => {
      expect(loadConfig(validServiceEnv()).caExpiryAlertDays).toEqual([180, 90, 30, 7, 1]);
    });

    it('takes another list, farthest first, and refuses a malformed one', () => {
      expect(
        loadConfig(validServiceEnv({ SERVICE_CA_EXPIRY_ALERT_DAYS: '14,365,60' })).caExpiryAlertDays,
      ).toEqual([365, 60, 14]);
      expect(refusal(validServiceEnv({ SERVICE_CA_EXPIRY_ALERT_DAYS: '90,0' })).message).toContain(
        'SERVICE_CA_EXPIRY_ALERT_DAYS',
      );
    });
  });

  describe('SERVICE_KEYGEN_MODE', () => {
    it('defaults to agent and accepts server', () => {
      expect(loadConfig(validServiceEnv()).keygenMode).toBe('agent');
      expect(loadConfig(validServiceEnv({ SERVICE_KEYGEN_MODE: 'server' })).keygenMode).toBe('server');
    });

    it('refuses another value', () => {
      expect(refusal(validServiceEnv({ SERVICE_KEYGEN_MODE: 'hsm' })).message).toContain(
        'SERVICE_KEYGEN_MODE',
      );
    });
  });

  describe('revocation timers', () => {
    it('defaults to a 1m CRL sweep, 12h CRL lead, 30s OCSP sweep, 30m OCSP lead, 24h responder lead and a 32 MiB OCSP cache', () => {
      expect(loadConfig(validServiceEnv()).revocation).toEqual({
        crlSweepIntervalMs: 60_000,
        crlRefreshBeforeMs: 12 * 3_600_000,
        ocspSweepIntervalMs: 30_000,
        ocspRefreshBeforeMs: 30 * 60_000,
        responderRenewBeforeMs: 24 * 3_600_000,
        ocspCacheMaxBytes: 32 * 1024 * 1024,
      });
    });

    it('accepts the short values the sweep tests use', () => {
      expect(
        loadConfig(
          validServiceEnv({
            SERVICE_CRL_SWEEP_INTERVAL: '1s',
            SERVICE_CRL_REFRESH_BEFORE: '23h59m58s',
            SERVICE_OCSP_SWEEP_INTERVAL: '1s',
            SERVICE_OCSP_REFRESH_BEFORE: '59m57s',
            SERVICE_OCSP_RESPONDER_RENEW_BEFORE: '719h59m55s',
            SERVICE_OCSP_CACHE_MAX_BYTES: '1048576',
          }),
        ).revocation,
      ).toEqual({
        crlSweepIntervalMs: 1000,
        crlRefreshBeforeMs: 24 * 3_600_000 - 2000,
        ocspSweepIntervalMs: 1000,
        ocspRefreshBeforeMs: 3_600_000 - 3000,
        responderRenewBeforeMs: 720 * 3_600_000 - 5000,
        ocspCacheMaxBytes: 1024 * 1024,
      });
    });

    it.each([
      ['SERVICE_CRL_SWEEP_INTERVAL', '999ms'],
      ['SERVICE_CRL_SWEEP_INTERVAL', '2h'],
      ['SERVICE_CRL_REFRESH_BEFORE', '24h'],
      ['SERVICE_OCSP_SWEEP_INTERVAL', 'soon'],
      ['SERVICE_OCSP_REFRESH_BEFORE', '1h'],
      ['SERVICE_OCSP_RESPONDER_RENEW_BEFORE', '59s'],
      ['SERVICE_OCSP_RESPONDER_RENEW_BEFORE', '721h'],
      ['SERVICE_OCSP_CACHE_MAX_BYTES', '1048575'],
      ['SERVICE_OCSP_CACHE_MAX_BYTES', '1073741825'],
      ['SERVICE_OCSP_CACHE_MAX_BYTES', '32MiB'],
    ])('refuses %s=%s', (name, value) => {
      expect(refusal(validServiceEnv({ [name]: value })).message).toContain(name);
    });

    it('keeps SCEP records 90 days by default, at least 8 (an approval waits 7), or for ever with 0', () => {
      expect(loadConfig(validServiceEnv()).scep).toEqual({
        retentionDays: 90,
        retentionIntervalMs: 3_600_000,
      });
      expect(
        loadConfig(
          validServiceEnv({ SERVICE_SCEP_RETENTION_DAYS: '0', SERVICE_SCEP_RETENTION_INTERVAL: '10s' }),
        ).scep,
      ).toEqual({ retentionDays: 0, retentionIntervalMs: 10_000 });
      expect(loadConfig(validServiceEnv({ SERVICE_SCEP_RETENTION_DAYS: '8' })).scep.retentionDays).toBe(8);
      for (const [name, value] of [
        ['SERVICE_SCEP_RETENTION_DAYS', '7'],
        ['SERVICE_SCEP_RETENTION_DAYS', '36501'],
        ['SERVICE_SCEP_RETENTION_DAYS', 'forever'],
        ['SERVICE_SCEP_RETENTION_INTERVAL', '9s'],
        ['SERVICE_SCEP_RETENTION_INTERVAL', '25h'],
      ])
        expect(refusal(validServiceEnv({ [name]: value })).message).toContain(name);
    });

    it('keeps ACME records at least 8 days (an order lives 7), or for ever with 0', () => {
      expect(loadConfig(validServiceEnv({ SERVICE_ACME_RETENTION_DAYS: '8' })).acme.retentionDays).toBe(8);
      expect(refusal(validServiceEnv({ SERVICE_ACME_RETENTION_DAYS: '7' })).message).toContain(
        'must be 0 (keep everything) or at least 8',
      );
    });
  });

  describe('ACME settings', () => {
    it('defaults to port 80, the system resolvers, the default issuer and 300 orders an hour', () => {
      expect(loadConfig(validServiceEnv()).acme).toEqual({
        http01Port: 80,
        tlsAlpn01Port: 443,
        dnsResolvers: [],
        caaIdentities: [],
        issuerId: undefined,
        newOrdersPerHour: 300,
        newAccountsPerIpPerHour: 300,
        newOrdersPerIpPerHour: 30_000,
        failedValidationsPerHour: 5,
        challengeAnswerWaitMs: 2000,
        retentionDays: 90,
        retentionIntervalMs: 3_600_000,
        externalAccountRequired: false,
        termsOfServiceReagreement: false,
        revocationExplanationUrl: undefined,
      });
    });

    it('reads the http-01 port, resolvers and issuer', () => {
      const acme = loadConfig(
        validServiceEnv({
          SERVICE_ACME_HTTP01_PORT: '5002',
          SERVICE_ACME_TLSALPN01_PORT: '5003',
          SERVICE_ACME_DNS_RESOLVERS: '127.0.0.1:5353, [::1]:53,10.0.0.2',
          SERVICE_ACME_ISSUER_ID: 'iss-acme',
          SERVICE_ACME_NEW_ORDERS_PER_HOUR: '5',
          SERVICE_ACME_EAB_REQUIRED: 'true',
          SERVICE_ACME_CAA_IDENTITIES: 'ca.example.com, Certlane.Example',
          SERVICE_ACME_NEW_ACCOUNTS_PER_IP_PER_HOUR: '7',
          SERVICE_ACME_NEW_ORDERS_PER_IP_PER_HOUR: '8',
          SERVICE_ACME_FAILED_VALIDATIONS_PER_HOUR: '9',
          SERVICE_ACME_CHALLENGE_ANSWER_WAIT_MS: '0',
          SERVICE_ACME_RETENTION_DAYS: '0',
          SERVICE_ACME_RETENTION_INTERVAL: '10s',
          SERVICE_ACME_REVOCATION_EXPLANATION_URL: 'https://ca.example/revoked/',
          SERVICE_ACME_TERMS_OF_SERVICE_URL: 'https://ca.example/terms/',
          SERVICE_ACME_TERMS_OF_SERVICE_REAGREEMENT: 'true',
          SERVICE_ACME_WEBSITE_URL: 'https://ca.example',
        }),
      ).acme;
      expect(acme).toEqual({
        http01Port: 5002,
        tlsAlpn01Port: 5003,
        dnsResolvers: ['127.0.0.1:5353', '[::1]:53', '10.0.0.2'],
        caaIdentities: ['ca.example.com', 'certlane.example'],
        issuerId: 'iss-acme',
        newOrdersPerHour: 5,
        newAccountsPerIpPerHour: 7,
        newOrdersPerIpPerHour: 8,
        failedValidationsPerHour: 9,
        challengeAnswerWaitMs: 0,
        retentionDays: 0,
        retentionIntervalMs: 10_000,
        externalAccountRequired: true,
        revocationExplanationUrl: 'https://ca.example/revoked',
        termsOfServiceUrl: 'https://ca.example/terms/',
        termsOfServiceReagreement: true,
        websiteUrl: 'https://ca.example/',
      });
    });

    it.each([
      ['SERVICE_ACME_HTTP01_PORT', '0'],
      ['SERVICE_ACME_HTTP01_PORT', 'eighty'],
      ['SERVICE_ACME_TLSALPN01_PORT', '70000'],
      ['SERVICE_ACME_DNS_RESOLVERS', 'dns.example.com'],
      ['SERVICE_ACME_DNS_RESOLVERS', '127.0.0.1:53;8.8.8.8'],
      ['SERVICE_ACME_NEW_ORDERS_PER_HOUR', '0'],
      ['SERVICE_ACME_EAB_REQUIRED', 'maybe'],
      ['SERVICE_ACME_NEW_ACCOUNTS_PER_IP_PER_HOUR', '0'],
      ['SERVICE_ACME_NEW_ORDERS_PER_IP_PER_HOUR', 'many'],
      ['SERVICE_ACME_FAILED_VALIDATIONS_PER_HOUR', '-1'],
      ['SERVICE_ACME_CHALLENGE_ANSWER_WAIT_MS', '30001'],
      ['SERVICE_ACME_RETENTION_DAYS', '7'],
      ['SERVICE_ACME_RETENTION_DAYS', '-1'],
      ['SERVICE_ACME_RETENTION_DAYS', '36501'],
      ['SERVICE_ACME_RETENTION_INTERVAL', '9s'],
      ['SERVICE_ACME_RETENTION_INTERVAL', '25h'],
      ['SERVICE_ACME_CAA_IDENTITIES', 'ca.example.com;x'],
      ['SERVICE_ACME_REVOCATION_EXPLANATION_URL', 'ftp://ca.example/revoked'],
      ['SERVICE_ACME_TERMS_OF_SERVICE_URL', 'terms.pdf'],
      ['SERVICE_ACME_TERMS_OF_SERVICE_URL', 'https://ca.example/terms?v=1'],
      ['SERVICE_ACME_WEBSITE_URL', 'mailto:ca@example.com'],
      ['SERVICE_ACME_TERMS_OF_SERVICE_REAGREEMENT', 'sometimes'],
      // Re-agreement without terms: nothing to agree to.
      ['SERVICE_ACME_TERMS_OF_SERVICE_REAGREEMENT', 'true'],
    ])('refuses %s=%s', (name, value) => {
      expect(refusal(validServiceEnv({ [name]: value })).message).toContain(name);
    });
  });

  describe('SERVICE_REVOCATION_BASE_URL', () => {
    it('defaults to https://localhost:8443 and drops a trailing slash', () => {
      expect(loadConfig(validServiceEnv()).revocationBaseUrl).toBe('https://localhost:8443');
      expect(
        loadConfig(validServiceEnv({ SERVICE_REVOCATION_BASE_URL: 'http://pki.example.com/rev/' }))
          .revocationBaseUrl,
      ).toBe('http://pki.example.com/rev');
    });

    it.each(['pki.example.com', 'ftp://pki.example.com', 'https://pki.example.com/?x=1', 'https://u:p@h'])(
      'refuses %s',
      (value) => {
        expect(refusal(validServiceEnv({ SERVICE_REVOCATION_BASE_URL: value })).message).toContain(
          'SERVICE_REVOCATION_BASE_URL',
        );
      },
    );
  });
});
