import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { RevocationList, ScepProfileDto } from '@certlane/contracts';
import { eventually, httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import { readCertRep, ScepRequester } from './scep/testing/scep-requester';

/**
 * Revocation of mutual-TLS client certificates, EST and SCEP alike (client-certificate-status.ts):
 * device certificates issued by Certlane's own CA (over EST Basic), one revoked through the API
 * by the real revocation service, then presented by curl `--cert` on `/.well-known/est-mtls/...`
 * and `/scep-mtls`, whose trust bundle is that CA.
 */
describe('client certificate revocation on the mutual-TLS paths (EST, SCEP)', () => {
  let system: TestSystem;
  let gateway: string;
  let db: Client;
  let raPem: string;
  const dir = mkdtempSync(join(tmpdir(), 'client-revocation-'));
  const path = (name: string) => join(dir, name);
  const PASSWORD = 'client-revocation-password';

  const admin = (method: string, url: string, body?: unknown) =>
    httpsRequest(`${gateway}${url}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        'content-type': 'application/json',
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  function curl(args: string[]): { status: number; body: string } {
    const result = spawnSync(
      'curl',
      ['-sS', '--cacert', path('server-ca.pem'), '-o', path('body.txt'), '-w', '%{http_code}', ...args],
      { encoding: 'utf8' },
    );
    return { status: Number(result.stdout), body: readFileSync(path('body.txt'), 'utf8') };
  }
  /** A base64 DER P-256 CSR with a clientAuth EKU request; its key in `<name>.key`. */
  function csr(name: string, cn: string): string {
    execFileSync(
      'openssl',
      ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${cn}`]
        .concat(['-keyout', path(`${name}.key`), '-out', path(`${name}.req`)])
        .concat(['-addext', `subjectAltName=DNS:${cn}`, '-addext', 'extendedKeyUsage=clientAuth']),
      { stdio: 'ignore' },
    );
    const der = execFileSync('openssl', ['req', '-in', path(`${name}.req`), '-outform', 'DER']);
    writeFileSync(path(`${name}.b64`), der.toString('base64'));
    return path(`${name}.b64`);
  }
  /** A device certificate from Certlane's CA over EST Basic: `<name>.pem` and its inventory id. */
  async function device(name: string): Promise<string> {
    const cn = `${name}.devices.test`;
    const enrolled = curl(
      [
        '-u',
        `issuer:${PASSWORD}`,
        '--data-binary',
        `@${csr(name, cn)}`,
        '-H',
        'Content-Type: application/pkcs10',
      ].concat([`${gateway}/.well-known/est/issue/simpleenroll`]),
    );
    expect([enrolled.status, enrolled.body.slice(0, 100)]).toEqual([200, expect.any(String)]);
    writeFileSync(path(`${name}.p7.b64`), enrolled.body);
    execFileSync('openssl', ['base64', '-d', '-in', path(`${name}.p7.b64`), '-out', path(`${name}.p7`)]);
    const pem = execFileSync(
      'openssl',
      ['pkcs7', '-inform', 'DER', '-in', path(`${name}.p7`), '-print_certs'],
      {
        encoding: 'utf8',
      },
    );
    writeFileSync(path(`${name}.pem`), pem.slice(pem.indexOf('-----BEGIN')));
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM issuance.certificates WHERE common_name = $1`,
      [cn],
    );
    expect(rows).toHaveLength(1);
    return rows[0].id;
  }
  const estEnroll = (base: string, identity: string) =>
    curl(
      ['--cert', path(`${identity}.pem`), '--key', path(`${identity}.key`), '--data-binary']
        .concat([
          `@${csr(`${identity}-next`, `${identity}.devices.test`)}`,
          '-H',
          'Content-Type: application/pkcs10',
        ])
        .concat([`${base}/.well-known/est-mtls/fleet/simpleenroll`]),
    );
  function scepEnroll(base: string, device: string, identity: string) {
    const requester = new ScepRequester(dir, device);
    writeFileSync(
      path(`${device}.msg`),
      requester.pkiMessage({ messageType: '19', envelope: requester.envelope(requester.csr(), raPem) }),
    );
    const result = spawnSync(
      'curl',
      ['-sS', '--cacert', path('server-ca.pem'), '-o', path(`${device}.rep`), '-w', '%{http_code}']
        .concat(['--cert', path(`${identity}.pem`), '--key', path(`${identity}.key`)])
        .concat([
          '--data-binary',
          `@${path(`${device}.msg`)}`,
          '-H',
          'Content-Type: application/x-pki-message',
        ])
        .concat([`${base}/scep-mtls/fleet?operation=PKIOperation`]),
      { encoding: 'utf8' },
    );
    expect(Number(result.stdout)).toBe(200);
    return readCertRep(dir, readFileSync(path(`${device}.rep`)));
  }

  beforeAll(async () => {
    system = await startTestSystem(
      'clientrev',
      ['auth', 'issuance', 'revocation', 'protocol-frontends', 'api-gateway'],
      { SERVICE_TLS_REQUEST_CLIENT_CERT: 'true' },
    );
    gateway = system.services['api-gateway'].url;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    writeFileSync(path('server-ca.pem'), system.ca);
    const issue = await admin('POST', '/api/v1/admin/est/profiles', {
      path_id: 'issue',
      auth_methods: ['basic'],
      basic_username: 'issuer',
      basic_password: PASSWORD,
      rate_limit_per_minute: 1000,
    });
    expect(issue.status).toBe(201);
    // The trust bundle of both mutual-TLS profiles: Certlane's own CA chain, as cacerts gives it.
    const cacerts = curl([`${gateway}/.well-known/est/issue/cacerts`]);
    writeFileSync(path('cacerts.b64'), cacerts.body);
    execFileSync('openssl', ['base64', '-d', '-in', path('cacerts.b64'), '-out', path('cacerts.p7')]);
    const chain = execFileSync(
      'openssl',
      ['pkcs7', '-inform', 'DER', '-in', path('cacerts.p7'), '-print_certs'],
      {
        encoding: 'utf8',
      },
    );
    const trust = chain.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n/g)!.join('');
    writeFileSync(path('trust.pem'), trust);
    const fleet = await admin('POST', '/api/v1/admin/est/profiles', {
      path_id: 'fleet',
      auth_methods: ['mtls'],
      trust_bundle_pem: trust,
      rate_limit_per_minute: 1000,
    });
    expect([fleet.status, fleet.text]).toEqual([201, expect.any(String)]);
    const scep = await admin('POST', '/api/v1/admin/scep/profiles', {
      path_id: 'fleet',
      mtls_enabled: true,
      trust_bundle_path: path('trust.pem'),
    });
    expect([scep.status, scep.text]).toEqual([201, expect.any(String)]);
    expect((scep.json() as ScepProfileDto).ra_certificate).toBeDefined();
    execFileSync(
      'curl',
      ['-sS', '--cacert', path('server-ca.pem'), '-o', path('ca-ra.p7')].concat([
        `${gateway}/scep-mtls/fleet?operation=GetCACert`,
      ]),
    );
    const printed = execFileSync(
      'openssl',
      ['pkcs7', '-inform', 'DER', '-in', path('ca-ra.p7'), '-print_certs'],
      {
        encoding: 'utf8',
      },
    );
    raPem = printed.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n/)![0];
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it("RFC 7030 3.3.2: a client certificate of Certlane's CA that is not revoked enrolls over EST and SCEP mutual TLS", async () => {
    await device('good');
    expect(estEnroll(gateway, 'good').status).toBe(200);
    expect(estEnroll(system.services['protocol-frontends'].url, 'good').status).toBe(200);
    expect(scepEnroll(gateway, 'good-scep', 'good')).toMatchObject({ pkiStatus: '0' });
  });

  it('RFC 7030 3.3.2: a revoked client certificate is refused: EST 403 and est_auth_failed_mtls, SCEP FAILURE badRequest', async () => {
    const id = await device('revoked');
    const revoked = await admin('POST', `/api/v1/certificates/${id}/revoke`, { reason: 'keyCompromise' });
    expect([revoked.status, revoked.text]).toEqual([200, expect.any(String)]);
    // The revocation reaches the revocation service as an event: wait until it lists the serial.
    const serial = new X509Certificate(readFileSync(path('revoked.pem'))).serialNumber
      .toLowerCase()
      .replace(/^(00)+/, '');
    await eventually(async () => {
      const list = (await admin('GET', '/api/v1/crl')).json() as RevocationList;
      return list.entries.some((entry) => entry.serial_number.replace(/^(00)+/, '') === serial);
    }, 'the revocation service lists the revoked serial');
    for (const base of [gateway, system.services['protocol-frontends'].url]) {
      const answer = estEnroll(base, 'revoked');
      expect([answer.status, answer.body]).toEqual([403, expect.stringMatching(/revoked/)]);
    }
    await eventually(async () => {
      const { rows } = await db.query(
        `SELECT details->>'reason' AS reason FROM auth.audit_events WHERE action = 'est_auth_failed_mtls'`,
      );
      return rows.some((row) => row.reason === 'the client certificate is revoked');
    }, 'est_auth_failed_mtls is audited with the reason');
    expect(scepEnroll(gateway, 'revoked-scep', 'revoked')).toMatchObject({ pkiStatus: '2', failInfo: '2' });
  });
});
