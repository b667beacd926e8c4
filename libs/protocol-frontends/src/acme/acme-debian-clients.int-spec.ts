import { execFile } from 'node:child_process';
import { createHash, createPublicKey, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, startTestSystem, TestSystem, adminApiRequest } from '@certlane/testing';
import { Client } from 'pg';
import { acmeCertificateOf, certificateSans, issuedByNextInChain } from './testing/client-checks';

const run = promisify(execFile);

/** The RFC 7638 thumbprint of a PEM key's public JWK, as the server stores it per account. */
function thumbprint(keyPem: string): string {
  const { crv, e, kty, n, x, y } = createPublicKey(keyPem).export({ format: 'jwk' });
  const members = kty === 'RSA' ? { e, kty, n } : { crv, kty, x, y };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

/** What a client printed when it failed; a client that succeeds fails the test. */
function failure(client: Promise<unknown>): Promise<string> {
  return client.then(
    () => {
      throw new Error('the client succeeded where it should have been refused');
    },
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
  );
}

/**
 * Two more unmodified ACME clients from Debian, each a different implementation again:
 * lacme (Perl, LWP; privilege separated: lacme-accountd holds the RSA account key and signs, the
 * client runs as _lacme-client and its own webserver as _lacme-www answers http-01) and acmetool
 * (Go, hlandau's acmeapi; a state directory, answers http-01 on its own listener). Neither sends
 * EAB, so both use the default profile.
 *
 * Configuration only, for the sandbox: lacme trusts /etc/ssl/certs/ca-certificates.crt alone (its
 * client clears the environment when it drops privileges), so the test CA is mounted over it in a
 * mount namespace of lacme's own, as for uacme; `[webserver] listen` puts its webserver on the
 * http-01 port; its `CAfile` (which it verifies every issued chain against) is the issuing root
 * from the API. acmetool takes SSL_CERT_FILE; `http-ports` adds the http-01 port to the listeners
 * it always tries (:80, 402, 4402); `http-self-test: false`, as the self-test fetches from port 80
 * by DNS and Go's resolver does not resolve `.localhost`; it always also writes the challenge to
 * /var/run/acme/acme-challenge, so /run is a tmpfs in its own mount namespace. acmetool 0.2 does
 * not revoke: `acmetool revoke` only marks the certificate directory (its reconcile's
 * processPendingRevocations is commented out upstream), so only lacme covers revocation.
 */
describe('ACME server with real clients from Debian: lacme and acmetool', () => {
  let system: TestSystem;
  let db: Client;
  let directory: string;
  let http01Port: number;
  let work: string;
  let caFile: string;
  let rootFile: string;

  const acmeCertificate = (pem: string) => acmeCertificateOf(db, pem);

  const accountByThumbprint = async (keyPem: string) => {
    const { rows } = await db.query<{
      id: string;
      status: string;
      contact: string[];
      terms_of_service_agreed: boolean;
      kty: string;
    }>(
      `SELECT id, status, contact, terms_of_service_agreed, jwk->>'kty' AS kty
         FROM protocol_frontends.acme_accounts WHERE jwk_thumbprint = $1`,
      [thumbprint(keyPem)],
    );
    return rows[0];
  };

  /** The types of the challenges that validated an order's authorizations. */
  const validatedWith = async (orderId: string) => {
    const { rows } = await db.query<{ type: string }>(
      `SELECT ch.type FROM protocol_frontends.acme_order_authorizations oa
         JOIN protocol_frontends.acme_challenges ch ON ch.authorization_id = oa.authorization_id
        WHERE oa.order_id = $1 AND ch.status = 'valid'`,
      [orderId],
    );
    return rows.map((row) => row.type).sort();
  };

  const sans = certificateSans;
  const issuedByTestCa = issuedByNextInChain;

  beforeAll(async () => {
    http01Port = await freePort();
    system = await startTestSystem('acmedebian', ['api-gateway', 'issuance', 'protocol-frontends'], {
      SERVICE_ACME_HTTP01_PORT: String(http01Port),
      SERVICE_ACME_TLSALPN01_PORT: String(await freePort()),
    });
    directory = `${system.services['protocol-frontends'].url}/acme/directory`;
    work = mkdtempSync(join(tmpdir(), 'certlane-acme-debian-'));
    caFile = join(work, 'ca.pem');
    writeFileSync(caFile, system.ca);
    const root = await adminApiRequest(system, 'GET', '/api/v1/intermediate-cas/ca-local-root');
    expect(root.status).toBe(200);
    rootFile = join(work, 'root.pem');
    writeFileSync(rootFile, (root.json() as { certificate_pem: string }).certificate_pem);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** A lacme configuration in `dir` whose lacme-accountd signs with `accountKey`. */
  const lacmeConfig = (dir: string, accountKey: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'lacme-accountd.conf'), `privkey = file:${accountKey}\n`);
    writeFileSync(
      join(dir, 'lacme.conf'),
      [
        'config-certs = lacme-certs.conf',
        '[client]',
        `server = ${directory}`,
        '[webserver]',
        `listen = 127.0.0.1:${http01Port}`,
        '[accountd]',
        `config = ${join(dir, 'lacme-accountd.conf')}`,
        '',
      ].join('\n'),
    );
    return join(dir, 'lacme.conf');
  };

  const lacme = (config: string, ...args: string[]) =>
    run(
      'unshare',
      [
        '--mount',
        'sh',
        '-c',
        'mount --bind "$0" /etc/ssl/certs/ca-certificates.crt && exec lacme "$@"',
        caFile,
        `--config=${config}`,
        ...args,
      ],
      { timeout: 90_000 },
    );

  const genpkey = async (file: string, algorithm: 'RSA' | 'EC') => {
    const options = algorithm === 'RSA' ? 'rsa_keygen_bits:2048' : 'ec_paramgen_curve:P-256';
    await run('openssl', ['genpkey', '-algorithm', algorithm, '-pkeyopt', options, '-out', file]);
    return file;
  };

  it('lacme: an unregistered key is accountDoesNotExist (RFC 8555 7.3.1); it registers with terms agreed, updates its contact, deactivates, and is unauthorized after (7.3.6)', async () => {
    const dir = join(work, 'lacme-account');
    mkdirSync(dir);
    const key = await genpkey(join(dir, 'account.key'), 'RSA');
    const config = lacmeConfig(dir, key);

    // Without --register lacme sends newAccount with onlyReturnExisting.
    expect(await failure(lacme(config, '--debug', 'account'))).toContain(
      'urn:ietf:params:acme:error:accountDoesNotExist',
    );
    expect(await accountByThumbprint(readFileSync(key, 'utf8'))).toBeUndefined();

    const registered = await lacme(config, 'account', '--register', '--tos-agreed', 'mailto:ops@example.com');
    expect(JSON.parse(registered.stdout)).toMatchObject({
      status: 'valid',
      contact: ['mailto:ops@example.com'],
    });
    const account = await accountByThumbprint(readFileSync(key, 'utf8'));
    expect(account).toMatchObject({
      status: 'valid',
      contact: ['mailto:ops@example.com'],
      terms_of_service_agreed: true,
      kty: 'RSA',
    });
    expect(/Key ID: (\S+)/.exec(registered.stderr)?.[1].split('/').pop()).toBe(account.id);

    // An already registered key: lacme finds its account URL, then updates the contact there.
    await lacme(config, 'account', 'mailto:hostmaster@example.com');
    expect((await accountByThumbprint(readFileSync(key, 'utf8')))?.contact).toEqual([
      'mailto:hostmaster@example.com',
    ]);

    const deactivated = await lacme(config, 'account', '--deactivate');
    expect(JSON.parse(deactivated.stdout)).toMatchObject({ status: 'deactivated' });
    expect((await accountByThumbprint(readFileSync(key, 'utf8')))?.status).toBe('deactivated');
    expect(await failure(lacme(config, '--debug', 'account'))).toContain(
      'urn:ietf:params:acme:error:unauthorized',
    );
  }, 120_000);

  it("lacme: a two-name certificate through its own http-01 webserver, verified by lacme against the issuing root; revoked with the account key (then alreadyRevoked), and an RSA one revoked with the certificate's own key (RFC 8555 7.6)", async () => {
    const dir = join(work, 'lacme-orders');
    mkdirSync(dir);
    const accountKey = await genpkey(join(dir, 'account.key'), 'RSA');
    const config = lacmeConfig(dir, accountKey);
    await lacme(config, 'account', '--register', '--tos-agreed', 'mailto:ops@example.com');
    const account = await accountByThumbprint(readFileSync(accountKey, 'utf8'));
    expect(account?.status).toBe('valid');

    const ecKey = await genpkey(join(dir, 'ec.key'), 'EC');
    const rsaKey = await genpkey(join(dir, 'rsa.key'), 'RSA');
    const files = {
      cert: join(dir, 'two-names.pem'),
      chain: join(dir, 'two-names-chain.pem'),
      rsa: join(dir, 'rsa.pem'),
    };
    writeFileSync(
      join(dir, 'lacme-certs.conf'),
      [
        '[two-names]',
        `certificate-key = ${ecKey}`,
        `certificate = ${files.cert}`,
        `certificate-chain = ${files.chain}`,
        'subject = /CN=ld-test.localhost',
        'subjectAltName = DNS:ld-test.localhost,DNS:www.ld-test.localhost',
        `CAfile = ${rootFile}`,
        '[rsa]',
        `certificate-key = ${rsaKey}`,
        `certificate = ${files.rsa}`,
        'subject = /CN=ld-rsa.localhost',
        `CAfile = ${rootFile}`,
        '',
      ].join('\n'),
    );

    // lacme exits non-zero unless `openssl verify -purpose sslserver -x509_strict` accepts the chain.
    await lacme(config, 'newOrder', 'two-names');
    const pem = readFileSync(files.cert, 'utf8');
    expect(sans(pem)).toEqual(['DNS:ld-test.localhost', 'DNS:www.ld-test.localhost']);
    expect(issuedByTestCa(readFileSync(files.chain, 'utf8'))).toBe(true);
    const row = await acmeCertificate(pem);
    expect(row).toMatchObject({ account_id: account.id, revoked_at: null });
    expect(await validatedWith(row!.order_id)).toEqual(['http-01', 'http-01']);

    await lacme(config, 'newOrder', 'rsa');
    const rsaPem = readFileSync(files.rsa, 'utf8');
    expect(new X509Certificate(rsaPem).publicKey.asymmetricKeyType).toBe('rsa');
    expect(sans(rsaPem)).toEqual(['DNS:ld-rsa.localhost']);

    await lacme(config, 'revokeCert', files.cert);
    expect((await acmeCertificate(pem))?.revoked_at).toBeInstanceOf(Date);
    expect(await failure(lacme(config, '--debug', 'revokeCert', files.cert))).toContain(
      'urn:ietf:params:acme:error:alreadyRevoked',
    );

    // lacme-accountd pointed at the certificate key: lacme asks newAccount (onlyReturnExisting)
    // for a kid, is refused, and sends revokeCert signed with that key's jwk.
    const byKey = lacmeConfig(join(dir, 'by-certificate-key'), rsaKey);
    await lacme(byKey, 'revokeCert', files.rsa);
    expect((await acmeCertificate(rsaPem))?.revoked_at).toBeInstanceOf(Date);
    expect(await accountByThumbprint(readFileSync(rsaKey, 'utf8'))).toBeUndefined();
  }, 180_000);

  it('acmetool: registers an ES256 account from its response file, obtains a two-name certificate answering http-01 on its own listener, and its next reconcile finds the certificate satisfying (no new order)', async () => {
    const dir = join(work, 'acmetool');
    const state = join(dir, 'state');
    const hooks = join(dir, 'hooks');
    mkdirSync(join(state, 'conf'), { recursive: true });
    mkdirSync(hooks);
    const responses = join(dir, 'responses.yaml');
    writeFileSync(responses, '"acme-enter-email": "ops@example.com"\n');
    writeFileSync(
      join(state, 'conf', 'target'),
      [
        'request:',
        `  provider: ${directory}`,
        '  key:',
        '    type: ecdsa',
        '  challenge:',
        '    http-ports:',
        `      - 127.0.0.1:${http01Port}`,
        '    http-self-test: false',
        '',
      ].join('\n'),
    );
    const acmetool = (...args: string[]) =>
      run(
        'unshare',
        [
          '--mount',
          'sh',
          '-c',
          'mount -t tmpfs tmpfs /run && exec acmetool "$@"',
          'acmetool',
          '--state',
          state,
          '--hooks',
          hooks,
          '--batch',
          '--response-file',
          responses,
          ...args,
        ],
        { env: { ...process.env, SSL_CERT_FILE: caFile }, timeout: 120_000 },
      );

    await acmetool('want', 'at-test.localhost', 'www.at-test.localhost');
    const live = join(state, 'live', 'at-test.localhost');
    const pem = readFileSync(join(live, 'cert'), 'utf8');
    expect(sans(pem)).toEqual(['DNS:at-test.localhost', 'DNS:www.at-test.localhost']);
    expect(new X509Certificate(pem).publicKey.asymmetricKeyType).toBe('ec');
    expect(issuedByTestCa(readFileSync(join(live, 'fullchain'), 'utf8'))).toBe(true);
    expect(readFileSync(join(state, 'live', 'www.at-test.localhost', 'cert'), 'utf8')).toBe(pem);

    // accounts/<directory>/<key id>/privkey: the key the server registered.
    const [provider] = readdirSync(join(state, 'accounts'));
    const [keyId] = readdirSync(join(state, 'accounts', provider));
    const accountKey = readFileSync(join(state, 'accounts', provider, keyId, 'privkey'), 'utf8');
    const account = await accountByThumbprint(accountKey);
    expect(account).toMatchObject({ status: 'valid', contact: ['mailto:ops@example.com'], kty: 'EC' });

    const row = await acmeCertificate(pem);
    expect(row).toMatchObject({ account_id: account.id, revoked_at: null });
    // acmetool keeps the URL of the order it finalized beside the certificate.
    expect(readFileSync(join(live, 'url'), 'utf8').trim().split('/').pop()).toBe(row!.order_id);
    expect(await validatedWith(row!.order_id)).toEqual(['http-01', 'http-01']);

    const orders = async () =>
      Number(
        (
          await db.query('SELECT count(*) FROM protocol_frontends.acme_orders WHERE account_id = $1', [
            account.id,
          ])
        ).rows[0].count,
      );
    expect(await orders()).toBe(1);
    // Satisfying to acmetool: its key, both names, CA-signed, within validity, not near expiry.
    await acmetool('reconcile');
    expect(await orders()).toBe(1);
  }, 180_000);
});
