import { execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScepProfileDto } from '@certlane/contracts';
import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { readCertRep, ScepRequester } from './testing/scep-requester';

/**
 * SCEP over mutual TLS with real processes (issue 21, `/scep-mtls`; ADR 0059 as amended, ADR
 * 0061): curl `--cert` posts an OpenSSL-built PKCSReq without a challenge password, through the
 * gateway of the split deployment (which passes on what the client presented) and on
 * protocol-frontends' own listener. The client chain is checked by the platform's
 * `verifyClientCertificate` against the profile's trust bundle.
 */
describe('SCEP over mutual TLS with curl', () => {
  let system: TestSystem;
  let gateway: string;
  let raPem: string;
  const dir = mkdtempSync(join(tmpdir(), 'scep-mtls-curl-'));
  const path = (name: string) => join(dir, name);
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });

  function ca(name: string): void {
    openssl(
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2']
        .concat(['-keyout', path(`${name}.key`), '-out', path(`${name}.pem`), '-subj', `/CN=${name}`])
        .concat(['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=keyCertSign']),
    );
  }
  /** A TLS client identity issued by `issuer`: key and certificate curl presents. */
  function identity(name: string, issuer: string): void {
    openssl(
      ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'].concat([
        '-keyout',
        path(`${name}.key`),
        '-out',
        path(`${name}.csr`),
        '-subj',
        `/CN=${name}`,
      ]),
    );
    writeFileSync(path(`${name}.ext`), 'extendedKeyUsage=clientAuth\n');
    openssl(
      [
        'x509',
        '-req',
        '-in',
        path(`${name}.csr`),
        '-CA',
        path(`${issuer}.pem`),
        '-CAkey',
        path(`${issuer}.key`),
      ]
        .concat(['-set_serial', String(Date.now()), '-days', '2', '-out', path(`${name}.pem`)])
        .concat(['-extfile', path(`${name}.ext`)]),
    );
  }
  /** A PKCSReq (no challenge password) posted by curl, with the client identity when given. */
  function pkcsReq(base: string, device: string, identityName?: string) {
    const requester = new ScepRequester(dir, device);
    writeFileSync(
      path(`${device}.msg`),
      requester.pkiMessage({ messageType: '19', envelope: requester.envelope(requester.csr(), raPem) }),
    );
    const result = spawnSync(
      'curl',
      ['-sS', '--cacert', path('server-ca.pem'), '-o', path(`${device}.rep`), '-w', '%{http_code}']
        .concat(
          identityName ? ['--cert', path(`${identityName}.pem`), '--key', path(`${identityName}.key`)] : [],
        )
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
    system = await startTestSystem('scepmtls', ['auth', 'issuance', 'protocol-frontends', 'api-gateway'], {
      SERVICE_TLS_REQUEST_CLIENT_CERT: 'true',
    });
    gateway = system.services['api-gateway'].url;
    writeFileSync(path('server-ca.pem'), system.ca);
    ca('Fleet Root');
    ca('Stranger Root');
    identity('device', 'Fleet Root');
    identity('stranger', 'Stranger Root');
    const created = await httpsRequest(`${gateway}/api/v1/admin/scep/profiles`, {
      method: 'POST',
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        path_id: 'fleet',
        mtls_enabled: true,
        trust_bundle_path: path('Fleet Root.pem'),
      }),
    });
    expect([created.status, created.text]).toEqual([201, expect.any(String)]);
    const fingerprint = (created.json() as ScepProfileDto).ra_certificate.fingerprint_sha256;
    // The RA certificate from GetCACert (RA first, then the CA chain), as a device gets it.
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
    expect(new X509Certificate(raPem).fingerprint256.replace(/:/g, '').toLowerCase()).toBe(
      fingerprint.replace(/:/g, '').toLowerCase(),
    );
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('issue 21 (mTLS): a client certificate from the trust bundle enrolls through the gateway', () => {
    const answer = pkcsReq(gateway, 'via-gateway', 'device');
    expect([answer.messageType, answer.pkiStatus, answer.failInfo]).toEqual(['3', '0', undefined]);
  });

  it("issue 21 (mTLS): a client certificate from the trust bundle enrolls on protocol-frontends' own listener", () => {
    const answer = pkcsReq(system.services['protocol-frontends'].url, 'direct', 'device');
    expect([answer.pkiStatus, answer.failInfo]).toEqual(['0', undefined]);
  });

  it('issue 21 (mTLS): a client certificate from elsewhere, or none, is refused (FAILURE badRequest) on both listeners', () => {
    for (const base of [gateway, system.services['protocol-frontends'].url]) {
      expect(pkcsReq(base, `stranger-${base.length}`, 'stranger')).toMatchObject({
        pkiStatus: '2',
        failInfo: '2',
      });
      expect(pkcsReq(base, `none-${base.length}`)).toMatchObject({ pkiStatus: '2', failInfo: '2' });
    }
  });
});
