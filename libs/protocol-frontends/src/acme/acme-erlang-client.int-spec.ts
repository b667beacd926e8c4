import { execFile } from 'node:child_process';
import { createHash, createPublicKey, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, startTestSystem, TestSystem, adminApiRequest } from '@certlane/testing';
import { Client } from 'pg';
import {
  acmeCertificateOf,
  certificateSans,
  issuedByNextInChain,
  withWebroot,
} from './testing/client-checks';

const run = promisify(execFile);

/** The RFC 7638 thumbprint of a PEM key's public JWK, as the server stores it per account. */
function thumbprint(keyPem: string): string {
  const { crv, e, kty, n, x, y } = createPublicKey(keyPem).export({ format: 'jwk' });
  const members = kty === 'RSA' ? { e, kty, n } : { crv, kty, x, y };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

/** Whether a PEM certificate holds the public half of a PEM private key. */
function holdsKey(certPem: string, keyPem: string): boolean {
  const spki = (key: ReturnType<typeof createPublicKey>) => key.export({ type: 'spki', format: 'der' });
  return spki(new X509Certificate(certPem).publicKey).equals(spki(createPublicKey(keyPem)));
}

/**
 * One more unmodified ACME client library, a different implementation again: ejabberd's
 * (Debian's erlang-p1-acme: processone's p1_acme over OTP 25's httpc, public_key and erlang-jose),
 * driven by `testing/erlang-p1-acme/drive.escript` through its two calls, p1_acme:issue/4 (the
 * whole flow, its http-01 answers written by its challenge_fun) and p1_acme:revoke/4 (signed by
 * the certificate's own key, with no reason). Configuration only: the default httpc profile's
 * socket options make it verify the server (the library sets none, and OTP 25's httpc does not
 * verify by default), pinned to the test system's self-signed certificate, which OTP's ssl would
 * refuse as selfsigned_peer even from its cacertfile; `ca_certs` is the issuing root, which the
 * library checks each downloaded chain against. It has no EAB, no key rollover, no account update or
 * deactivation, no revocation by the account, no reason code and no dns-01, so none is tested.
 */
describe("ACME server with a real Erlang client library: ejabberd's p1_acme", () => {
  let system: TestSystem;
  let db: Client;
  let directory: string;
  let http01Port: number;
  let work: string;
  let webroot: string;
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
      jwk_thumbprint: string;
    }>(
      `SELECT id, status, contact, terms_of_service_agreed, jwk->>'kty' AS kty, jwk_thumbprint
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

  /** The audit details of the revocations of certificates ordered by an account. */
  const revocationsAudited = async (accountId: string) => {
    const { rows } = await db.query<{ details: Record<string, unknown> }>(
      `SELECT envelope->'data'->'details' AS details FROM protocol_frontends.outbox
        WHERE envelope->'data'->>'action' = 'acme.certificate_revoked' AND envelope->'data'->>'actor_id' = $1`,
      [`acme-account:${accountId}`],
    );
    return rows.map((row) => row.details);
  };

  /** The PEM chain the server stored for an order's certificate. */
  const storedChain = async (orderId: string) => {
    const { rows } = await db.query<{ pem_chain: string }>(
      'SELECT pem_chain FROM protocol_frontends.acme_certificates WHERE order_id = $1',
      [orderId],
    );
    return rows[0].pem_chain;
  };

  /** The SHA-256 fingerprints of a PEM chain's certificates, in order. */
  const chainOf = (pem: string) =>
    (pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? []).map(
      (block) => new X509Certificate(block).fingerprint256,
    );

  const sans = certificateSans;
  const issuedByTestCa = issuedByNextInChain;

  beforeAll(async () => {
    http01Port = await freePort();
    system = await startTestSystem('acmeerl', ['api-gateway', 'issuance', 'protocol-frontends'], {
      SERVICE_ACME_HTTP01_PORT: String(http01Port),
    });
    directory = `${system.services['protocol-frontends'].url}/acme/directory`;
    work = mkdtempSync(join(tmpdir(), 'certlane-acme-erlang-'));
    webroot = join(work, 'webroot');
    mkdirSync(join(webroot, '.well-known', 'acme-challenge'), { recursive: true });
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

  it('p1_acme (1.0.22): a two-name EC certificate under an ES256 account and a two-name RSA one under an RS256 account, both with http-01 and checked by the library against the issuing root; an unanswered challenge reported; revocation with the certificate key, then alreadyRevoked', async () => {
    const names = ['erl-test.localhost', 'www.erl-test.localhost'];
    const rsaNames = ['erl-rsa.localhost', 'www.erl-rsa.localhost'];
    const failName = 'erl-fail.localhost';
    const out = join(work, 'out');
    mkdirSync(out);
    const driver = join(__dirname, 'testing', 'erlang-p1-acme', 'drive.escript');
    const args = [
      ...['--directory', directory, '--ca', caFile, '--root', rootFile, '--webroot', webroot],
      ...['--names', names.join(','), '--rsa-names', rsaNames.join(','), '--fail-name', failName],
      ...['--out', out],
    ];
    const { stdout } = await withWebroot(webroot, http01Port, () =>
      run('escript', [driver, ...args], { timeout: 150_000 }),
    ).catch((error: { message: string; stdout?: string }) => {
      throw new Error(`${error.message}\n${error.stdout ?? ''}`);
    });
    const summary = JSON.parse(stdout);
    expect(summary.version).toMatch(/^1\.\d+\.\d+$/);

    /** One issue/4: the account it registered, the certificate, and its row on the server. */
    const issued = async (
      label: 'ec' | 'rsa',
      orderNames: string[],
      kty: 'EC' | 'RSA',
      keyType: 'ec' | 'rsa',
    ) => {
      const result = summary[label];
      expect(result).toMatchObject({
        result: 'ok',
        account_key: keyType,
        cert_key: keyType,
        // ca_certs given: the library found the downloaded chain valid up to the issuing root.
        validation_result: 'valid',
      });
      const accountKey = readFileSync(result.files.account_key, 'utf8');
      const account = await accountByThumbprint(accountKey);
      expect(account).toMatchObject({
        status: 'valid',
        contact: ['mailto:ops@example.com'],
        terms_of_service_agreed: true,
        kty,
      });
      // challenge_fun got every name at once; each key authorization is <token>.<the account's
      // RFC 7638 thumbprint as the server computed it>.
      expect(result.challenges).toEqual(
        orderNames.map((domain) => ({ domain, token_in_key: true, thumbprint: account.jwk_thumbprint })),
      );

      const pem = readFileSync(result.files.cert, 'utf8');
      expect(sans(pem)).toEqual(orderNames.map((n) => `DNS:${n}`));
      expect(new X509Certificate(pem).publicKey.asymmetricKeyType).toBe(keyType);
      expect(holdsKey(pem, readFileSync(result.files.cert_key, 'utf8'))).toBe(true);
      expect(issuedByTestCa(pem)).toBe(true);
      const row = await acmeCertificate(pem);
      expect(row).toMatchObject({ account_id: account.id, profile_id: 'default' });
      // The library's cert_chain (sorted by issuer) is the chain the server holds, leaf first.
      const stored = chainOf(await storedChain(row!.order_id));
      expect(result.chain).toBe(stored.length);
      expect(chainOf(pem)).toEqual(stored);
      expect(await validatedWith(row!.order_id)).toEqual(['http-01', 'http-01']);
      return { pem, account };
    };
    const ec = await issued('ec', names, 'EC', 'ec');
    const rsa = await issued('rsa', rsaNames, 'RSA', 'rsa');
    expect(rsa.account.id).not.toBe(ec.account.id);

    // The server's problem for the unanswered http-01 (fetched on the http-01 port), as the
    // library words it.
    const url = `http://${failName}:${http01Port}/.well-known/acme-challenge/`.replace(/\./g, '\\.');
    expect(summary.challenge_failed).toMatch(
      new RegExp(
        `^Challenge failed for domain ${failName.replace(/\./g, '\\.')}: ACME server reported: ${url}[\\w-]+ answered HTTP 404 \\(error type: unauthorized\\)$`,
      ),
    );
    const { rows: failed } = await db.query<{ status: string }>(
      `SELECT status FROM protocol_frontends.acme_orders WHERE identifiers @> $1::jsonb`,
      [JSON.stringify([{ type: 'dns', value: failName }])],
    );
    expect(failed).toEqual([{ status: 'invalid' }]);

    // RFC 8555 7.6: signed by the certificate's key (no account); no reason sent, so 0.
    expect(summary.revoked).toBe('ok');
    expect(await acmeCertificate(ec.pem)).toMatchObject({
      revocation_reason: 'unspecified',
      revoked_at: expect.any(Date),
    });
    expect(await revocationsAudited(ec.account.id)).toEqual([
      expect.objectContaining({ by: 'certificate_key', reason: 'unspecified' }),
    ]);
    expect((await acmeCertificate(rsa.pem))?.revoked_at).toBeNull();
    expect(summary.revoked_again).toBe(
      'ACME server reported: the certificate is already revoked (error type: alreadyRevoked)',
    );
  }, 180_000);
});
