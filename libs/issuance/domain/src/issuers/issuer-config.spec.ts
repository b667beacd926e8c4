import { ISSUER_TYPES, REDACTED } from '@certlane/contracts';
import {
  commandOutsideDirectory,
  issuerCapabilities,
  ISSUER_TYPE_SPECS,
  isSecretKey,
  mergeRedactedSecrets,
  redactConfig,
  validateIssuerConfig,
} from './issuer-config';
import { issuerId } from './issuer-id';

describe('issuer types', () => {
  it('defines the twelve types of spec section 1, local_ca, acme, vault_pki and script implemented', () => {
    expect(ISSUER_TYPES).toHaveLength(12);
    expect(Object.keys(ISSUER_TYPE_SPECS).sort()).toEqual([...ISSUER_TYPES].sort());
    expect(ISSUER_TYPES.filter((t) => ISSUER_TYPE_SPECS[t].implemented)).toEqual([
      'local_ca',
      'acme',
      'vault_pki',
      'script',
    ]);
  });

  it('names no local_ca or script setting so that it would be redacted', () => {
    expect(Object.keys(ISSUER_TYPE_SPECS.script.fields).filter(isSecretKey)).toEqual([]);
  });

  it('names no local_ca setting so that it would be redacted', () => {
    expect(Object.keys(ISSUER_TYPE_SPECS.local_ca.fields).filter(isSecretKey)).toEqual([]);
  });
});

describe(validateIssuerConfig.name, () => {
  it('accepts a valid config and an empty local_ca config', () => {
    expect(validateIssuerConfig('local_ca', {})).toEqual([]);
    expect(
      validateIssuerConfig('vault_pki', {
        address: 'https://vault.example.com:8200',
        mount: 'pki',
        role: 'web',
        token: 's.abc',
      }),
    ).toEqual([]);
  });

  it('names missing required keys, unknown keys and wrong types', () => {
    const problems = validateIssuerConfig('vault_pki', { address: 'http://vault', mount: 3, extra: 1 });
    expect(problems.map((p) => p.field).sort()).toEqual(['address', 'extra', 'mount', 'role', 'token']);
    expect(problems.find((p) => p.field === 'address')?.message).toBe(
      'config.address must be an https:// URL without credentials (they go in the credential settings)',
    );
    expect(problems.find((p) => p.field === 'token')?.message).toBe('config.token is required for vault_pki');
  });

  it('refuses credentials in an https URL setting and never echoes them', () => {
    for (const address of ['https://admin:hunter2@vault.example.com', 'https://s.tok@vault.example.com/v1']) {
      const [problem] = validateIssuerConfig('vault_pki', { address, mount: 'pki', role: 'web', token: 't' });
      expect(problem).toEqual({
        field: 'address',
        message:
          'config.address must be an https:// URL without credentials (they go in the credential settings)',
      });
    }
    // An @ in the path is not userinfo.
    expect(
      validateIssuerConfig('acme', {
        directory_url: 'https://ca.example.com/acme/@team/directory',
        email: 'a@b.c',
      }),
    ).toEqual([]);
  });

  it('takes an http or https publication_base_url for a local CA, without credentials, query or fragment', () => {
    for (const url of [
      'http://crl.example.com',
      'http://crl.example.com:8080/pki/',
      'https://cdn.example.com/x',
    ]) {
      expect(validateIssuerConfig('local_ca', { publication_base_url: url })).toEqual([]);
    }
    for (const url of [
      'ftp://crl.example.com',
      'http://u:p@crl.example.com',
      'http://crl.example.com/?a=1',
      'crl',
    ]) {
      expect(validateIssuerConfig('local_ca', { publication_base_url: url })[0]?.message).toBe(
        'config.publication_base_url must be an http:// or https:// URL without credentials, query or fragment',
      );
    }
  });

  it('checks integer bounds and enums', () => {
    expect(validateIssuerConfig('local_ca', { default_validity_days: 0 })[0].message).toBe(
      'config.default_validity_days must be between 1 and 3650',
    );
    expect(validateIssuerConfig('local_ca', { ca_algorithm: 'DSA' })[0].message).toMatch(
      /must be one of ECDSA-P256/,
    );
  });

  it('refuses a default validity above the maximum', () => {
    expect(validateIssuerConfig('local_ca', { default_validity_days: 400, max_validity_days: 30 })).toEqual([
      {
        field: 'default_validity_days',
        message: 'config.default_validity_days 400 exceeds config.max_validity_days 30',
      },
    ]);
    expect(validateIssuerConfig('local_ca', { default_validity_days: 30, max_validity_days: 30 })).toEqual(
      [],
    );
  });

  it('refuses shell metacharacters in commands', () => {
    expect(validateIssuerConfig('script', { issue_command: '/opt/issue.sh --csr in.pem' })).toEqual([]);
    for (const bad of ['/opt/issue.sh; rm -rf /', 'a && b', 'a | b', 'echo $(id)', 'a `id`']) {
      expect(validateIssuerConfig('script', { issue_command: bad })).toEqual([
        { field: 'issue_command', message: 'config.issue_command must not contain shell metacharacters' },
      ]);
    }
  });

  it('refuses a command whose program is not a file in the scripts directory, when one is given (ADR 0082)', () => {
    const options = { scriptsDirectory: '/etc/certlane/issuer-scripts' };
    expect(
      validateIssuerConfig(
        'script',
        {
          issue_command: '/etc/certlane/issuer-scripts/issue.sh --ca prod',
          revoke_command: '/etc/certlane/issuer-scripts/sub/revoke',
        },
        options,
      ),
    ).toEqual([]);
    for (const bad of [
      'issue.sh',
      '/usr/bin/curl -T /etc/passwd',
      '/etc/certlane/issuer-scripts/../../../bin/sh',
      '/etc/certlane/issuer-scripts-2/x',
    ]) {
      expect(validateIssuerConfig('script', { issue_command: bad }, options)).toEqual([
        {
          field: 'issue_command',
          message: expect.stringMatching(
            /^config\.issue_command: its program must be a file in \/etc\/certlane\/issuer-scripts\//,
          ),
        },
      ]);
    }
    expect(validateIssuerConfig('script', { issue_command: '/usr/bin/curl' })).toEqual([]);
  });

  it('asks an acme issuer for what its challenge needs (ADR 0084)', () => {
    const base = { directory_url: 'https://acme.example.com/directory', email: 'pki@example.com' };
    expect(validateIssuerConfig('acme', base)).toEqual([]);
    expect(validateIssuerConfig('acme', { ...base, challenge_type: 'dns-01' }).map((p) => p.field)).toEqual([
      'dns_update_server',
      'dns_zone',
    ]);
    expect(
      validateIssuerConfig('acme', {
        ...base,
        challenge_type: 'dns-01',
        dns_update_server: '[::1]:5353',
        dns_zone: 'example.com',
        tsig_name: 'k',
        tsig_secret: 'c2VjcmV0',
      }),
    ).toEqual([]);
    expect(
      validateIssuerConfig('acme', {
        ...base,
        dns_update_server: 'ns1.example.com:53:1',
        tsig_name: 'k',
        eab_hmac_key: 'x',
      }).map((p) => p.field),
    ).toEqual(['dns_update_server', 'tsig_secret', 'eab_kid']);
    for (const server of ['ns1.example.com:0', 'ns1.example.com:65536', '[::1]:99999'])
      expect(validateIssuerConfig('acme', { ...base, dns_update_server: server })).toEqual([
        {
          field: 'dns_update_server',
          message: 'config.dns_update_server must be host[:port], the port 1..65535',
        },
      ]);
  });

  it('never echoes a value in its messages', () => {
    const problems = validateIssuerConfig('vault_pki', { address: 'not a url SECRETVALUE', token: 42 });
    expect(JSON.stringify(problems)).not.toContain('SECRETVALUE');
  });
});

describe(redactConfig.name, () => {
  it('redacts keys containing password, secret, token or key, in any case', () => {
    expect(
      redactConfig({
        login: 'bob',
        password: 'p',
        client_secret: 'c',
        Token: 't',
        api_key: 'k',
        eab_hmac_key: 'h',
        base_url: 'https://x',
      }),
    ).toEqual({
      login: 'bob',
      password: REDACTED,
      client_secret: REDACTED,
      Token: REDACTED,
      api_key: REDACTED,
      eab_hmac_key: REDACTED,
      base_url: 'https://x',
    });
  });
});

describe(`${redactConfig.name} of URLs`, () => {
  it('hides the credentials of a URL stored before they were refused, keeping the rest', () => {
    expect(
      redactConfig({
        address: 'https://admin:hun@ter2@vault.example.com:8200/v1',
        directory_url: 'https://ca.example.com/acme/@team/directory',
        host: 'user@dc1.example.com',
      }),
    ).toEqual({
      address: `https://${REDACTED}@vault.example.com:8200/v1`,
      directory_url: 'https://ca.example.com/acme/@team/directory',
      host: 'user@dc1.example.com',
    });
  });
});

describe(mergeRedactedSecrets.name, () => {
  it('keeps a stored secret sent back redacted, replaces it otherwise, and drops absent keys', () => {
    const stored = { token: 'old', role: 'web', mount: 'pki' };
    expect(mergeRedactedSecrets(stored, { token: REDACTED, role: 'api' })).toEqual({
      token: 'old',
      role: 'api',
    });
    expect(mergeRedactedSecrets(stored, { token: 'new' })).toEqual({ token: 'new' });
    expect(mergeRedactedSecrets(stored, { role: REDACTED })).toEqual({ role: REDACTED });
  });
});

describe(issuerId.name, () => {
  it('is iss-<slug>', () => {
    expect(issuerId('Local CA')).toBe('iss-local-ca');
    expect(issuerId('!!!')).toBe('iss-issuer');
    expect(issuerId('x'.repeat(200))).toMatch(/^iss-x{56}$/);
  });
});

describe(commandOutsideDirectory.name, () => {
  it('accepts files below the directory, with or without a trailing slash on it', () => {
    expect(commandOutsideDirectory('/srv/scripts/issue', '/srv/scripts')).toBeNull();
    expect(commandOutsideDirectory('/srv/scripts/ca/issue', '/srv/scripts/')).toBeNull();
  });

  it('refuses relative programs, siblings of the directory and dot segments', () => {
    for (const program of [
      'issue',
      './issue',
      '/srv/scripts',
      '/srv/scripts/',
      '/srv/scriptsx/issue',
      '/srv/scripts/./issue',
      '/srv/scripts/a/../issue',
      '/srv/scripts//issue',
    ]) {
      expect(commandOutsideDirectory(program, '/srv/scripts')).not.toBeNull();
    }
  });

  it('refuses everything when the directory is not absolute', () => {
    expect(commandOutsideDirectory('scripts/issue', 'scripts')).toBe(
      'SERVICE_ISSUER_SCRIPTS_DIR is not an absolute directory',
    );
  });
});

describe(issuerCapabilities.name, () => {
  it('gives a script issuer revoke only with a revoke_command', () => {
    expect(issuerCapabilities('script', { issue_command: '/s/i' })).toEqual({
      crl: false,
      ocsp: false,
      revoke: false,
      issue: true,
    });
    expect(issuerCapabilities('script', { issue_command: '/s/i', revoke_command: '/s/r' })).toEqual({
      crl: false,
      ocsp: false,
      revoke: true,
      issue: true,
    });
  });

  it('gives the local CA everything and a kind without a connector nothing', () => {
    expect(issuerCapabilities('local_ca', {})).toEqual({ crl: true, ocsp: true, revoke: true, issue: true });
    expect(issuerCapabilities('digicert', { api_key: 'k' })).toEqual({
      crl: false,
      ocsp: false,
      revoke: false,
      issue: false,
    });
    expect(issuerCapabilities('vault_pki', {})).toEqual({
      crl: false,
      ocsp: false,
      revoke: true,
      issue: true,
    });
    expect(issuerCapabilities('unknown', {})).toEqual({
      crl: false,
      ocsp: false,
      revoke: false,
      issue: false,
    });
  });
});
