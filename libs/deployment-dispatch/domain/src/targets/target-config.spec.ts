import { TARGET_TYPES } from '@certlane/contracts';
import {
  isSecretConfigKey,
  mergeRedactedTargetSecrets,
  REDACTED_VALUE,
  redactTargetConfig,
  TARGET_TYPE_SPECS,
  unresolvedRedactions,
  validateTargetConfig,
} from './target-config';

const FINGERPRINT = `SHA256:${'A'.repeat(43)}`;

describe('target kinds', () => {
  it('defines the fifteen kinds, ten of them run by an agent', () => {
    expect(TARGET_TYPES).toHaveLength(15);
    expect(Object.keys(TARGET_TYPE_SPECS).sort()).toEqual([...TARGET_TYPES].sort());
    expect(TARGET_TYPES.filter((t) => TARGET_TYPE_SPECS[t].agentRun)).toEqual([
      'nginx',
      'apache',
      'haproxy',
      'caddy',
      'traefik',
      'envoy',
      'postfix',
      'dovecot',
      'java_keystore',
      'iis',
    ]);
  });

  it('gives the three commands to every shell-using kind of spec 2.12 and to no other', () => {
    const withCommands = TARGET_TYPES.filter((t) => 'reload_command' in TARGET_TYPE_SPECS[t].fields);
    expect(withCommands).toEqual([
      'nginx',
      'apache',
      'haproxy',
      'caddy',
      'traefik',
      'envoy',
      'postfix',
      'dovecot',
      'java_keystore',
      'ssh',
    ]);
    for (const t of withCommands) {
      expect(TARGET_TYPE_SPECS[t].fields).toMatchObject({
        reload_command: { type: 'command' },
        validate_command: { type: 'command' },
        restart_command: { type: 'command' },
      });
    }
  });
});

describe(validateTargetConfig.name, () => {
  it('accepts a complete nginx config', () => {
    expect(
      validateTargetConfig('nginx', {
        cert_path: '/etc/nginx/tls/site.crt',
        key_path: '/etc/nginx/tls/site.key',
        chain_path: '/etc/nginx/tls/chain.pem',
        reload_command: '/usr/sbin/nginx -s reload',
        validate_command: '/usr/sbin/nginx -t',
        restart_command: 'systemctl restart nginx',
      }),
    ).toEqual([]);
  });

  it('names missing required keys, unknown keys and wrong types', () => {
    const problems = validateTargetConfig('nginx', {
      key_path: 'relative/key.pem',
      extra: 1,
      file_mode: '0777',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { field: 'cert_path', message: 'config.cert_path is required for nginx' },
        { field: 'key_path', message: 'config.key_path must be an absolute path without ".." segments' },
        { field: 'extra', message: 'config.extra is not a setting of nginx' },
        { field: 'file_mode', message: 'config.file_mode must be one of 0600, 0640, 0644' },
      ]),
    );
    expect(problems).toHaveLength(4);
  });

  it('refuses ".." in paths', () => {
    expect(validateTargetConfig('haproxy', { pem_path: '/etc/haproxy/../shadow' })[0].field).toBe('pem_path');
  });

  it.each(['reload_command', 'validate_command', 'restart_command'])(
    'refuses shell metacharacters in %s',
    (field) => {
      expect(
        validateTargetConfig('haproxy', {
          pem_path: '/etc/haproxy/site.pem',
          [field]: 'systemctl reload haproxy; id',
        }),
      ).toEqual([{ field, message: `config.${field} must not contain shell metacharacters` }]);
    },
  );

  it('checks ssh: the host key pin, the port, and the credential its auth method needs', () => {
    const base = {
      host: 'web1.example.com',
      username: 'deploy',
      host_key_fingerprint: FINGERPRINT,
      cert_path: '/etc/ssl/site.crt',
      key_path: '/etc/ssl/site.key',
    };
    expect(validateTargetConfig('ssh', { ...base, auth_method: 'key', private_key: 'PEM' })).toEqual([]);
    expect(validateTargetConfig('ssh', { ...base, auth_method: 'password' })).toEqual([
      { field: 'password', message: 'config.password is required when auth_method is password' },
    ]);
    expect(
      validateTargetConfig('ssh', {
        ...base,
        auth_method: 'key',
        private_key: 'x',
        port: 70000,
        host_key_fingerprint: 'md5',
      })
        .map((p) => p.field)
        .sort(),
    ).toEqual(['host_key_fingerprint', 'port']);
  });

  it('checks the API kinds', () => {
    expect(validateTargetConfig('azure_key_vault', { vault_url: 'http://v', certificate_name: 'c' })).toEqual(
      [
        {
          field: 'vault_url',
          message:
            'config.vault_url must be an https:// URL without credentials (they go in the credential settings)',
        },
      ],
    );
    // Credentials in the URL would be shown and logged with it: refused, not echoed.
    const [refused] = validateTargetConfig('azure_key_vault', {
      vault_url: 'https://app:s3cret@v.vault.azure.net',
      certificate_name: 'c',
    });
    expect(refused.field).toBe('vault_url');
    expect(refused.message).not.toContain('s3cret');
    expect(validateTargetConfig('aws_acm', { region: 'eu-west-1' })).toEqual([]);
    expect(
      validateTargetConfig('java_keystore', {})
        .map((p) => p.field)
        .sort(),
    ).toEqual(['alias', 'store_password', 'store_path']);
  });

  it('never echoes a value in its messages', () => {
    const problems = validateTargetConfig('f5', {
      management_url: 'not a url SECRETVALUE',
      password: 42,
      reload_command: 'x; SECRETVALUE',
    });
    expect(problems.length).toBeGreaterThan(0);
    expect(JSON.stringify(problems)).not.toContain('SECRETVALUE');
  });
});

describe('redaction', () => {
  it('treats names containing password, secret, token or key as secret, in any case', () => {
    expect(
      [
        'password',
        'client_secret',
        'service_account_token',
        'private_key',
        'Store_Password',
        'KEY_path',
      ].every(isSecretConfigKey),
    ).toBe(true);
    expect(['host', 'cert_path', 'alias', 'region', 'username'].some(isSecretConfigKey)).toBe(false);
  });

  it('redacts secret-bearing values and leaves the others', () => {
    expect(
      redactTargetConfig({ host: 'h', password: 'p', private_key: 'k', client_secret: '', token: null }),
    ).toEqual({
      host: 'h',
      password: REDACTED_VALUE,
      private_key: REDACTED_VALUE,
      client_secret: '',
      token: null,
    });
  });

  it('hides the credentials of a URL stored before they were refused', () => {
    expect(
      redactTargetConfig({ management_url: 'https://admin:p@ss@f5.example.com/mgmt', host: 'root@h' }),
    ).toEqual({ management_url: `https://${REDACTED_VALUE}@f5.example.com/mgmt`, host: 'root@h' });
  });

  it('keeps a stored secret sent back redacted, takes a new one, drops keys not sent', () => {
    const stored = { host: 'h', password: 'old', username: 'u' };
    expect(mergeRedactedTargetSecrets(stored, { host: 'h2', password: REDACTED_VALUE })).toEqual({
      host: 'h2',
      password: 'old',
    });
    expect(mergeRedactedTargetSecrets(stored, { password: 'new' })).toEqual({ password: 'new' });
  });

  it('finds redacted values with no stored secret behind them', () => {
    const merged = mergeRedactedTargetSecrets({}, { password: REDACTED_VALUE, host: REDACTED_VALUE });
    expect(unresolvedRedactions(merged)).toEqual(['password']);
  });
});
