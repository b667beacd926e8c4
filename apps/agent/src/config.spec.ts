import { AgentConfigError, flagsToEnv, loadAgentConfig, parseServerUrl } from './config';

const base = {
  SERVICE_SERVER_URL: 'https://gw.example:8443/',
  SERVICE_AGENT_ID: 'web-01',
  SERVICE_AGENT_API_KEY: 'k'.repeat(64),
};
const noFiles = (path: string): string => {
  throw new Error(`no file ${path}`);
};

describe('agent configuration', () => {
  it('refuses an http:// server URL with one line naming the variable', () => {
    expect(() => parseServerUrl('http://gw.example:8443')).toThrow(AgentConfigError);
    expect(() =>
      loadAgentConfig({ ...base, SERVICE_SERVER_URL: 'http://gw.example:8443' }, [], noFiles),
    ).toThrow(/^SERVICE_SERVER_URL uses http:\/\/: the agent only talks TLS/);
    expect(() => loadAgentConfig({ ...base, SERVICE_SERVER_URL: 'HTTP://gw.example' }, [], noFiles)).toThrow(
      /http:\/\//,
    );
    expect(() => loadAgentConfig(base, ['--server-url=http://gw.example'], noFiles)).toThrow(/http:\/\//);
  });

  it('refuses other schemes, credentials and garbage', () => {
    for (const url of ['ftp://x', 'gw.example:8443', '', 'https://u:p@gw.example', 'https://gw?x=1']) {
      expect(() => parseServerUrl(url)).toThrow(AgentConfigError);
    }
  });

  it('reads the defaults: 30 s polls, 60 s heartbeats, a 300 s backoff cap, the state dir', () => {
    const config = loadAgentConfig(base, [], noFiles);
    expect(config).toMatchObject({
      serverUrl: 'https://gw.example:8443',
      agentId: 'web-01',
      pollIntervalMs: 30_000,
      heartbeatIntervalMs: 60_000,
      backoffMaxMs: 300_000,
      stateDir: '/var/lib/certlane-agent',
      targetsFile: '/var/lib/certlane-agent/targets.json',
      insecureSkipVerify: false,
      logLevel: 'info',
    });
    expect(config.caBundle).toBeUndefined();
  });

  it('reads the key from a file and the CA bundle, flags winning over variables', () => {
    const files: Record<string, string> = {
      '/etc/key': `${'a'.repeat(64)}\n`,
      '/etc/ca.pem': '-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----\n',
    };
    const config = loadAgentConfig(
      {
        ...base,
        SERVICE_AGENT_API_KEY: undefined,
        SERVICE_AGENT_API_KEY_FILE: '/etc/key',
        SERVICE_SERVER_CA_BUNDLE_PATH: '/etc/ca.pem',
      },
      ['--agent-id', 'web-02', '--poll-interval=5', '--state-dir=/srv/agent'],
      (path) => files[path] ?? noFiles(path),
    );
    expect(config).toMatchObject({
      apiKey: 'a'.repeat(64),
      agentId: 'web-02',
      pollIntervalMs: 5000,
      stateDir: '/srv/agent',
    });
    expect(config.caBundle).toContain('BEGIN CERTIFICATE');
  });

  it('refuses a missing id or key, both key forms, bad intervals and unreadable files', () => {
    const refusals: [Record<string, string | undefined>, RegExp][] = [
      [{ ...base, SERVICE_AGENT_ID: '' }, /SERVICE_AGENT_ID is required/],
      [{ ...base, SERVICE_AGENT_ID: 'Bad Id' }, /SERVICE_AGENT_ID must be/],
      [
        { ...base, SERVICE_AGENT_API_KEY: '' },
        /SERVICE_AGENT_API_KEY or SERVICE_AGENT_API_KEY_FILE is required/,
      ],
      [{ ...base, SERVICE_AGENT_API_KEY_FILE: '/k' }, /not both/],
      [{ ...base, SERVICE_AGENT_API_KEY: undefined, SERVICE_AGENT_API_KEY_FILE: '/k' }, /cannot be read/],
      [
        { ...base, SERVICE_AGENT_POLL_INTERVAL_SECONDS: 'soon' },
        /SERVICE_AGENT_POLL_INTERVAL_SECONDS must be/,
      ],
      [
        { ...base, SERVICE_SERVER_CA_BUNDLE_PATH: '/nope' },
        /SERVICE_SERVER_CA_BUNDLE_PATH \/nope cannot be read/,
      ],
      [{ ...base, SERVICE_LOG_LEVEL: 'loud' }, /SERVICE_LOG_LEVEL/],
    ];
    for (const [env, message] of refusals) expect(() => loadAgentConfig(env, [], noFiles)).toThrow(message);
  });

  it('knows its flags and refuses others (the key is not a flag: it would show in ps)', () => {
    expect(flagsToEnv(['--targets-file=/t.json'])).toEqual({ SERVICE_AGENT_TARGETS_FILE: '/t.json' });
    expect(() => flagsToEnv(['--api-key=x'])).toThrow(/unknown flag --api-key/);
    expect(() => flagsToEnv(['serve'])).toThrow(/unexpected argument/);
    expect(() => flagsToEnv(['--agent-id'])).toThrow(/needs a value/);
  });

  it('reads filesystem discovery: absolute roots, interval, PKCS#12 passwords from a file; off when unset', () => {
    expect(loadAgentConfig(base, [], noFiles).discovery).toBeUndefined();
    const files = (path: string) => {
      if (path === '/etc/certlane/p12-passwords') return 'first\n\nsecond pass\r\n';
      throw new Error(`no file ${path}`);
    };
    expect(
      loadAgentConfig(
        {
          ...base,
          SERVICE_AGENT_DISCOVERY_PATHS: '/etc/ssl:/opt/app/conf',
          SERVICE_AGENT_DISCOVERY_PKCS12_PASSWORDS_FILE: '/etc/certlane/p12-passwords',
        },
        [],
        files,
      ).discovery,
    ).toEqual({
      roots: ['/etc/ssl', '/opt/app/conf'],
      pkcs12Passwords: ['first', 'second pass'],
      intervalMs: 21_600_000,
    });
    expect(() =>
      loadAgentConfig({ ...base, SERVICE_AGENT_DISCOVERY_PATHS: 'relative/dir' }, [], noFiles),
    ).toThrow(/absolute directories/);
    expect(() =>
      loadAgentConfig(
        {
          ...base,
          SERVICE_AGENT_DISCOVERY_PATHS: '/etc/ssl',
          SERVICE_AGENT_DISCOVERY_INTERVAL_SECONDS: '10',
        },
        [],
        noFiles,
      ),
    ).toThrow(/60 to 604800/);
    expect(() =>
      loadAgentConfig(
        {
          ...base,
          SERVICE_AGENT_DISCOVERY_PATHS: '/etc/ssl',
          SERVICE_AGENT_DISCOVERY_PKCS12_PASSWORDS_FILE: '/nope',
        },
        [],
        noFiles,
      ),
    ).toThrow(/cannot be read/);
  });
});
