import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { X509Certificate } from 'node:crypto';
import { AcmeEabKeyCreated } from '@certlane/contracts';
import {
  eventually,
  freePort,
  httpsRequest,
  startTestSystem,
  TestSystem,
  adminApiRequest,
} from '@certlane/testing';
import { Client } from 'pg';
import {
  acmeCertificateOf,
  boundAccountOf,
  certificateSans,
  issuedByNextInChain,
  servedCertificate,
  withWebroot,
} from './testing/client-checks';

const run = promisify(execFile);

/**
 * More unmodified ACME clients from Debian, each built on a different ACME implementation:
 * dehydrated (bash with curl and openssl), uacme (C, libcurl over GnuTLS), acme-tiny (Python's
 * standard library), Caddy (Go: CertMagic and acmez) and golang.org/x/crypto/acme (the base of
 * cert-manager's client, driven by `testing/x-crypto-acme/main.go`). certbot and lego are in
 * `acme-clients.int-spec.ts`. Each runs as shipped; the server must accept what each sends.
 */
describe('ACME server with more real clients', () => {
  let system: TestSystem;
  let db: Client;
  let directory: string;
  let eabDirectory: string;
  let http01Port: number;
  let tlsAlpn01Port: number;
  let work: string;
  let webroot: string;
  let caFile: string;

  const eabKey = async (): Promise<AcmeEabKeyCreated> => {
    const body = { description: 'more clients', profile_id: 'eab' };
    const answer = await adminApiRequest(system, 'POST', '/api/v1/admin/acme/eab-keys', body);
    expect(answer.status).toBe(201);
    return answer.json() as AcmeEabKeyCreated;
  };

  const boundAccount = (keyId: string) => boundAccountOf(db, keyId);

  const acmeCertificate = (pem: string) => acmeCertificateOf(db, pem);

  const sans = certificateSans;
  const issuedByTestCa = issuedByNextInChain;

  beforeAll(async () => {
    http01Port = await freePort();
    tlsAlpn01Port = await freePort();
    system = await startTestSystem('acmemore', ['api-gateway', 'issuance', 'protocol-frontends'], {
      SERVICE_ACME_HTTP01_PORT: String(http01Port),
      SERVICE_ACME_TLSALPN01_PORT: String(tlsAlpn01Port),
    });
    directory = `${system.services['protocol-frontends'].url}/acme/directory`;
    eabDirectory = `${system.services['protocol-frontends'].url}/acme/profile/eab/directory`;
    work = mkdtempSync(join(tmpdir(), 'certlane-acme-more-'));
    webroot = join(work, 'webroot');
    mkdirSync(join(webroot, '.well-known', 'acme-challenge'), { recursive: true });
    caFile = join(work, 'ca.pem');
    writeFileSync(caFile, system.ca);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const profile = await httpsRequest(`${system.services['api-gateway'].url}/api/v1/admin/acme/profiles`, {
      method: 'POST',
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        id: 'eab',
        description: 'EAB required',
        external_account_required: true,
        allow_requested_validity: true,
      }),
    });
    expect(profile.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const whileServed = <T>(body: () => Promise<T>): Promise<T> => withWebroot(webroot, http01Port, body);

  it("dehydrated: two accounts obtain two-name certificates with http-01; each revokes the other's (RFC 8555 7.6, authorizations for every identifier)", async () => {
    const env = { ...process.env, CURL_CA_BUNDLE: caFile };
    const names = ['dh-test.localhost', 'www.dh-test.localhost'];
    const account = async (name: string) => {
      const base = join(work, name);
      const config = join(base, 'config');
      mkdirSync(base, { recursive: true });
      writeFileSync(
        config,
        [
          `CA="${directory}"`,
          'CHALLENGETYPE="http-01"',
          `WELLKNOWN="${join(webroot, '.well-known', 'acme-challenge')}"`,
          `BASEDIR="${base}"`,
          'CONTACT_EMAIL="ops@example.com"',
          'KEY_ALGO=secp384r1',
          '',
        ].join('\n'),
      );
      const dehydrated = (...args: string[]) =>
        run('dehydrated', ['-f', config, ...args], { env, timeout: 90_000 });
      await dehydrated('--register', '--accept-terms');
      await whileServed(() => dehydrated('-c', ...names.flatMap((n) => ['-d', n])));
      const certFile = join(base, 'certs', names[0], 'cert.pem');
      const pem = readFileSync(certFile, 'utf8');
      expect(sans(pem)).toEqual(names.map((n) => `DNS:${n}`));
      expect(issuedByTestCa(readFileSync(join(base, 'certs', names[0], 'fullchain.pem'), 'utf8'))).toBe(true);
      expect((await acmeCertificate(pem))?.revoked_at).toBeNull();
      return { dehydrated, certFile, pem };
    };
    const first = await account('dehydrated-1');
    const second = await account('dehydrated-2');

    await second.dehydrated('-r', first.certFile);
    expect((await acmeCertificate(first.pem))?.revoked_at).toBeInstanceOf(Date);
    await first.dehydrated('-r', second.certFile);
    expect((await acmeCertificate(second.pem))?.revoked_at).toBeInstanceOf(Date);
  }, 180_000);

  it('dehydrated registers through a profile requiring external account binding (EAB_KID, EAB_HMAC_KEY)', async () => {
    const key = await eabKey();
    const base = join(work, 'dehydrated-eab');
    mkdirSync(base, { recursive: true });
    const lines = [`CA="${eabDirectory}"`, `BASEDIR="${base}"`, 'CONTACT_EMAIL="ops@example.com"'];
    const env = { ...process.env, CURL_CA_BUNDLE: caFile };
    writeFileSync(join(base, 'config'), [...lines, ''].join('\n'));
    const without = await run('dehydrated', ['-f', join(base, 'config'), '--register', '--accept-terms'], {
      env,
      timeout: 60_000,
    }).catch((error: { stdout: string; stderr: string }) => error);
    // dehydrated reads the directory's meta.externalAccountRequired before it registers.
    expect(`${without.stdout}${without.stderr}`).toContain('requires an external account');

    writeFileSync(
      join(base, 'config'),
      [...lines, `EAB_KID="${key.id}"`, `EAB_HMAC_KEY="${key.hmac_key}"`, ''].join('\n'),
    );
    rmSync(join(base, 'accounts'), { recursive: true, force: true });
    await run('dehydrated', ['-f', join(base, 'config'), '--register', '--accept-terms'], {
      env,
      timeout: 60_000,
    });
    expect(await boundAccount(key.id)).toMatch(/^[A-Za-z0-9_-]+$/);
  }, 120_000);

  it('uacme: an account with EAB, an RSA certificate, key rollover (RFC 8555 7.3.5), an EC certificate, revocation by the certificate key, deactivation', async () => {
    const confdir = join(work, 'uacme');
    const hook = join(work, 'uacme-hook.sh');
    // uacme's hook: <method> <type> <identifier> <token> <key authorization>; 1 declines a type.
    writeFileSync(
      hook,
      [
        '#!/bin/sh',
        '[ "$2" = "http-01" ] || exit 1',
        `dir='${join(webroot, '.well-known', 'acme-challenge')}'`,
        'case "$1" in',
        '  begin) printf "%s" "$5" > "$dir/$4" ;;',
        '  *) rm -f "$dir/$4" ;;',
        'esac',
        '',
      ].join('\n'),
    );
    chmodSync(hook, 0o755);
    const key = await eabKey();
    // uacme trusts only the system's store (GnuTLS, no variable names another): the test CA is
    // mounted over it in a mount namespace of uacme's own (root, as CI runs).
    const uacme = (...args: string[]) =>
      run(
        'unshare',
        [
          '--mount',
          'sh',
          '-c',
          'mount --bind "$0" /etc/ssl/certs/ca-certificates.crt && exec uacme "$@"',
          caFile,
          '-v',
          '-c',
          confdir,
          '-a',
          eabDirectory,
          '-h',
          hook,
          ...args,
        ],
        { timeout: 90_000 },
      );
    await uacme('-e', `${key.id}:${key.hmac_key}`, '-y', 'new', 'ops@example.com');
    const account = await boundAccount(key.id);
    expect(account).not.toBeNull();

    const certFile = join(confdir, 'ua-test.localhost', 'cert.pem');
    await whileServed(() => uacme('issue', 'ua-test.localhost', 'www.ua-test.localhost'));
    const rsa = readFileSync(certFile, 'utf8');
    expect(sans(rsa)).toEqual(['DNS:ua-test.localhost', 'DNS:www.ua-test.localhost']);
    expect(new X509Certificate(rsa).publicKey.asymmetricKeyType).toBe('rsa');
    expect(issuedByTestCa(rsa)).toBe(true);

    const before = (
      await db.query('SELECT jwk_thumbprint FROM protocol_frontends.acme_accounts WHERE id = $1', [account])
    ).rows[0].jwk_thumbprint;
    await uacme('-y', 'newkey');
    const after = (
      await db.query('SELECT jwk_thumbprint FROM protocol_frontends.acme_accounts WHERE id = $1', [account])
    ).rows[0].jwk_thumbprint;
    expect(after).not.toBe(before);

    // The rolled-over key signs the next order; -f: the RSA certificate is still fresh.
    rmSync(join(confdir, 'private', 'ua-test.localhost'), { recursive: true });
    await whileServed(() => uacme('-t', 'EC', '-f', 'issue', 'ua-test.localhost'));
    const ec = readFileSync(certFile, 'utf8');
    expect(new X509Certificate(ec).publicKey.asymmetricKeyType).toBe('ec');
    expect(sans(ec)).toEqual(['DNS:ua-test.localhost']);

    // RFC 8555 7.6: signed with the certificate's own key (a jwk request, not the account's).
    await uacme('-r', '1', 'revoke', certFile, join(confdir, 'private', 'ua-test.localhost', 'key.pem'));
    expect(await acmeCertificate(ec)).toMatchObject({ revocation_reason: 'keyCompromise' });
    expect((await acmeCertificate(rsa))?.revoked_at).toBeNull();

    await uacme('-y', 'deactivate');
    const refused = await whileServed(() => uacme('-f', 'issue', 'ua-test.localhost')).catch(
      (error: { stderr: string }) => error,
    );
    expect(String((refused as { stderr: string }).stderr)).toContain('deactivated');
  }, 240_000);

  it('acme-tiny signs a CSR with http-01 through its own account key', async () => {
    const dir = join(work, 'acme-tiny');
    mkdirSync(dir);
    await run('openssl', ['genrsa', '-out', join(dir, 'account.key'), '2048']);
    await run('openssl', [
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      join(dir, 'domain.key'),
      '-subj',
      '/CN=at-test.localhost',
      '-addext',
      'subjectAltName=DNS:at-test.localhost,DNS:www.at-test.localhost',
      '-out',
      join(dir, 'domain.csr'),
    ]);
    // --disable-check: acme-tiny's own pre-check fetches the token from port 80.
    const { stdout } = await whileServed(() =>
      run(
        'acme-tiny',
        [
          '--disable-check',
          '--account-key',
          join(dir, 'account.key'),
          '--csr',
          join(dir, 'domain.csr'),
          '--acme-dir',
          join(webroot, '.well-known', 'acme-challenge'),
          '--directory-url',
          directory,
          '--contact',
          'mailto:ops@example.com',
        ],
        { env: { ...process.env, SSL_CERT_FILE: caFile }, timeout: 90_000 },
      ),
    );
    expect(sans(stdout)).toEqual(['DNS:at-test.localhost', 'DNS:www.at-test.localhost']);
    expect(issuedByTestCa(stdout)).toBe(true);
  }, 120_000);

  it("golang.org/x/crypto/acme (the library cert-manager's client is forked from): EAB, http-01, an order's notAfter, finalize, key rollover, revocation by the new key, deactivation", async () => {
    const key = await eabKey();
    const notAfter = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3 * 86_400_000);
    const binary = join(work, 'x-crypto-acme');
    // GOPATH mode against Debian's golang-golang-x-crypto-dev, as packaged.
    await run('go', ['build', '-o', binary, join(__dirname, 'testing', 'x-crypto-acme', 'main.go')], {
      env: { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOFLAGS: '' },
      timeout: 180_000,
    });
    const out = join(work, 'x-crypto-acme.pem');
    const { stdout } = await run(
      binary,
      [
        '-directory',
        eabDirectory,
        '-ca',
        caFile,
        '-http01',
        `127.0.0.1:${http01Port}`,
        '-names',
        'go-test.localhost,www.go-test.localhost',
        '-eab-kid',
        key.id,
        '-eab-key',
        key.hmac_key,
        '-out',
        out,
        '-not-after',
        notAfter.toISOString().replace('.000Z', 'Z'),
      ],
      { timeout: 150_000 },
    );
    expect(stdout.trim().split('\n')).toEqual(
      [
        'registered',
        'ready',
        'issued',
        'rolled-over',
        'revoked',
        'deactivated',
        'refused-after-deactivation',
      ].map((s) => `step ${s}`),
    );
    const pem = readFileSync(out, 'utf8');
    expect(sans(pem)).toEqual(['DNS:go-test.localhost', 'DNS:www.go-test.localhost']);
    expect(new Date(new X509Certificate(pem).validTo)).toEqual(notAfter);
    expect(issuedByTestCa(pem)).toBe(true);
    expect(await acmeCertificate(pem)).toMatchObject({ revocation_reason: 'keyCompromise' });
    expect(await boundAccount(key.id)).not.toBeNull();
  }, 300_000);

  it('Caddy obtains a certificate with tls-alpn-01 and one with http-01 through an EAB profile, and serves them', async () => {
    const key = await eabKey();
    const dir = join(work, 'caddy');
    mkdirSync(dir);
    const issuer = (url: string, extra: string[]) => [
      '  tls {',
      '    issuer acme {',
      `      dir ${url}`,
      `      trusted_roots ${caFile}`,
      ...extra,
      '    }',
      '  }',
    ];
    const caddyfile = [
      '{',
      '  admin off',
      '  skip_install_trust',
      '  ocsp_stapling off',
      `  http_port ${http01Port}`,
      `  https_port ${tlsAlpn01Port}`,
      `  storage file_system ${join(dir, 'storage')}`,
      '  email ops@example.com',
      '}',
      'caddy-alpn.localhost {',
      ...issuer(directory, ['      disable_http_challenge']),
      '  respond "alpn"',
      '}',
      'caddy-eab.localhost {',
      ...issuer(eabDirectory, [`      eab ${key.id} ${key.hmac_key}`, '      disable_tlsalpn_challenge']),
      '  respond "eab"',
      '}',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'Caddyfile'), caddyfile);
    const caddy = spawn('caddy', ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    caddy.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    // The certificate Caddy serves for a name, if it is one the server issued and recorded.
    const served = (name: string) =>
      servedCertificate(tlsAlpn01Port, name).then(async (certificate) =>
        certificate && (await acmeCertificate(certificate.toString()))
          ? certificate.subjectAltName
          : undefined,
      );
    try {
      await eventually(
        async () => (await served('caddy-alpn.localhost')) === 'DNS:caddy-alpn.localhost',
        'Caddy serving its tls-alpn-01 certificate',
        90_000,
      ).catch((error) => {
        throw new Error(`${error.message}\n${log.slice(-4000)}`);
      });
      await eventually(
        async () => (await served('caddy-eab.localhost')) === 'DNS:caddy-eab.localhost',
        'Caddy serving its http-01 certificate',
        90_000,
      ).catch((error) => {
        throw new Error(`${error.message}\n${log.slice(-4000)}`);
      });
    } finally {
      caddy.kill('SIGKILL');
    }
    expect(log).toMatch(/"challenge_type":"tls-alpn-01"/);
    expect(log).toMatch(/"challenge_type":"http-01"/);
    expect(await boundAccount(key.id)).not.toBeNull();
  }, 240_000);
});
