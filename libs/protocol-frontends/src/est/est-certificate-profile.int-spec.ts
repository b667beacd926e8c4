import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const PASSWORD = 'est-profile-password-0123';
const DAY_MS = 86_400_000;

/**
 * EST under its certificate profile's settings (ADR 0058) with real processes (the gateway of
 * the split deployment, protocol-frontends, issuance) and curl and openssl as the client: the
 * certificate profile's validity_days is the validity of what EST issues.
 */
describe("EST under the certificate profile's settings", () => {
  let system: TestSystem;
  let gateway: string;
  let db: Client;
  const dir = mkdtempSync(join(tmpdir(), 'est-profile-'));
  const path = (name: string) => join(dir, name);

  const api = async (method: string, url: string, body?: unknown) =>
    httpsRequest(`${gateway}${url}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** A CSR made by openssl, as the base64 DER body EST sends (RFC 8951), and its SHA-256. */
  function csr(name: string): { file: string; sha256: string } {
    execFileSync(
      'openssl',
      ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat(
        ['-keyout', path(`${name}.key`), '-out', path(`${name}.csr`), '-subj', `/CN=${name}.example.test`],
        ['-addext', `subjectAltName=DNS:${name}.example.test`],
      ),
      { stdio: 'ignore' },
    );
    const der = execFileSync('openssl', ['req', '-in', path(`${name}.csr`), '-outform', 'DER']);
    writeFileSync(path(`${name}.b64`), der.toString('base64'));
    return { file: path(`${name}.b64`), sha256: createHash('sha256').update(der).digest('hex') };
  }

  /** POSTs a CSR with curl over Basic: the status, the response headers and the body. */
  function enroll(pathId: string, operation: string, file: string) {
    const result = spawnSync(
      'curl',
      ['-sS', '--cacert', path('ca.pem'), '-D', path('headers.txt'), '-o', path('body.txt')].concat(
        ['-w', '%{http_code}', '-u', `router:${PASSWORD}`, '--data-binary', `@${file}`],
        ['-H', 'Content-Type: application/pkcs10', `${gateway}/.well-known/est/${pathId}/${operation}`],
      ),
      { encoding: 'utf8' },
    );
    return {
      status: Number(result.stdout),
      headers: readFileSync(path('headers.txt'), 'utf8'),
      body: readFileSync(path('body.txt'), 'utf8'),
    };
  }

  /** The certificate of a certs-only answer, read by openssl pkcs7 -print_certs. */
  function certificateOf(body: string): X509Certificate {
    writeFileSync(path('answer.b64'), body);
    execFileSync('openssl', ['base64', '-d', '-in', path('answer.b64'), '-out', path('answer.p7')]);
    return new X509Certificate(
      execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-in', path('answer.p7'), '-print_certs'], {
        encoding: 'utf8',
      }),
    );
  }

  const lifetimeDays = (certificate: X509Certificate) =>
    (Date.parse(certificate.validTo) - Date.parse(certificate.validFrom)) / DAY_MS;

  beforeAll(async () => {
    system = await startTestSystem('estprofile', ['auth', 'issuance', 'protocol-frontends', 'api-gateway']);
    gateway = system.services['api-gateway'].url;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    writeFileSync(path('ca.pem'), system.ca);
    expect((await api('POST', '/api/v1/owners', { id: 'owner-est', name: 'EST devices' })).status).toBe(201);
    for (const profile of [{ id: 'est-thirty', name: 'EST 30 days', validity_days: 30 }])
      expect((await api('POST', '/api/v1/profiles', profile)).status).toBe(201);
    for (const [pathId, certificateProfile] of [
      ['thirty', 'est-thirty'],
      ['issuer-default', null],
    ]) {
      const created = await api('POST', '/api/v1/admin/est/profiles', {
        path_id: pathId,
        ...(certificateProfile ? { certificate_profile_id: certificateProfile } : {}),
        auth_methods: ['basic'],
        basic_username: 'router',
        basic_password: PASSWORD,
        serverkeygen_enabled: true,
        serverkeygen_unencrypted_allowed: true,
        rate_limit_per_minute: 1000,
        owner: 'owner-est',
      });
      expect([created.status, created.json()]).toEqual([201, expect.objectContaining({ path_id: pathId })]);
    }
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('RFC 7030 4.2.1: simpleenroll under a certificate profile with validity_days 30 gets a 30-day certificate', () => {
    const answer = enroll('thirty', 'simpleenroll', csr('thirty').file);
    expect(answer.status).toBe(200);
    const issued = certificateOf(answer.body);
    expect(issued.subject).toBe('CN=thirty.example.test');
    expect(lifetimeDays(issued)).toBeGreaterThan(29);
    expect(lifetimeDays(issued)).toBeLessThanOrEqual(30 + 1 / 24);
    // Without a certificate profile the issuer's default validity applies, which is not 30 days.
    const unprofiled = enroll('issuer-default', 'simpleenroll', csr('unprofiled').file);
    expect(unprofiled.status).toBe(200);
    expect(lifetimeDays(certificateOf(unprofiled.body))).toBeGreaterThan(31);
  });
});
