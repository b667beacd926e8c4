import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientCertificateStatus, revocationRefusal } from './client-certificate-status';
import { fetchCrl } from './client-certificate-status.service';

/**
 * Client certificates of an external CA (a device fleet's own CA, made and revoked with `openssl
 * ca`), its CRL served over HTTP from the certificates' CRL distribution point.
 */
describe('ClientCertificateStatus (external CAs: CRL distribution points)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'client-status-'));
  const path = (name: string) => join(dir, name);
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  let server: Server;
  let base: string;
  let crlFetches = 0;

  const certificate = (name: string) => new X509Certificate(readFileSync(path(`${name}.pem`)));
  function leaf(name: string, extensions: string): void {
    openssl(
      [
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-subj',
        `/CN=${name}`,
      ].concat(['-keyout', path(`${name}.key`), '-out', path(`${name}.csr`)]),
    );
    writeFileSync(path(`${name}.ext`), `extendedKeyUsage=clientAuth\n${extensions}`);
    openssl(
      ['x509', '-req', '-in', path(`${name}.csr`), '-CA', path('ca.pem'), '-CAkey', path('ca.key')]
        .concat(['-set_serial', String(Date.now() + name.length), '-days', '1', '-out', path(`${name}.pem`)])
        .concat(['-extfile', path(`${name}.ext`)]),
    );
  }
  const status = (counts = { local: 0 }) =>
    new ClientCertificateStatus({
      localCas: async () => {
        counts.local++;
        return [];
      },
      localOcsp: async () => {
        throw new Error('not a local CA');
      },
      fetchCrl: (url) => {
        crlFetches++;
        return fetchCrl(url);
      },
    });
  const check = (subject: ClientCertificateStatus, name: string) => {
    const cert = certificate(name);
    return subject.check(cert.fingerprint256, cert, () => [certificate('ca')]);
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url !== '/fleet.crl') {
        response.writeHead(404).end();
        return;
      }
      response
        .writeHead(200, { 'content-type': 'application/pkix-crl' })
        .end(readFileSync(path('fleet.crl')));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    openssl(
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2']
        .concat(['-keyout', path('ca.key'), '-out', path('ca.pem'), '-subj', '/CN=Fleet Root'])
        .concat(['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=keyCertSign,cRLSign']),
    );
    leaf('good', `crlDistributionPoints=URI:${base}/fleet.crl\n`);
    leaf('revoked', `crlDistributionPoints=URI:${base}/fleet.crl\n`);
    leaf('nocdp', '');
    leaf('gone', `crlDistributionPoints=URI:${base}/missing.crl\n`);
    writeFileSync(path('index.txt'), '');
    writeFileSync(path('crlnumber'), '01\n');
    writeFileSync(
      path('ca.cnf'),
      ['[ca]', 'default_ca = fleet', '[fleet]', `database = ${path('index.txt')}`]
        .concat([`crlnumber = ${path('crlnumber')}`, 'default_md = sha256', 'default_crl_days = 1'])
        .join('\n'),
    );
    const ca = ['-config', path('ca.cnf'), '-keyfile', path('ca.key'), '-cert', path('ca.pem')];
    openssl(['ca', ...ca, '-revoke', path('revoked.pem'), '-crl_reason', 'keyCompromise']);
    openssl(['ca', ...ca, '-gencrl', '-out', path('fleet.crl.pem')]);
    openssl(['crl', '-in', path('fleet.crl.pem'), '-outform', 'DER', '-out', path('fleet.crl')]);
  });

  afterAll(() => server.close());

  it("RFC 5280 6.3: a certificate on its issuer's CRL is revoked, one absent is good; the CRL is fetched once", async () => {
    crlFetches = 0;
    const subject = status();
    expect(await check(subject, 'revoked')).toEqual({ status: 'revoked' });
    expect(await check(subject, 'good')).toEqual({ status: 'good' });
    expect(crlFetches).toBe(1);
  });

  it('reuses a verdict per certificate: concurrent and repeated checks share one lookup', async () => {
    const counts = { local: 0 };
    crlFetches = 0;
    const subject = status(counts);
    const verdicts = await Promise.all([
      check(subject, 'good'),
      check(subject, 'good'),
      check(subject, 'good'),
    ]);
    expect(verdicts).toEqual([{ status: 'good' }, { status: 'good' }, { status: 'good' }]);
    expect(await check(subject, 'good')).toEqual({ status: 'good' });
    expect([counts.local, crlFetches]).toEqual([1, 1]);
  });

  it('a certificate without a CRL distribution point, or whose CRL cannot be fetched, is unknown: soft-fail accepts, hard-fail refuses', async () => {
    const subject = status();
    for (const name of ['nocdp', 'gone']) {
      const verdict = await check(subject, name);
      expect(verdict.status).toBe('unknown');
      expect(revocationRefusal(verdict, 'soft-fail')).toBeNull();
      expect(revocationRefusal(verdict, 'hard-fail')).toMatch(/revocation status is unknown/);
    }
  });

  it("RFC 5280 6.3.3: a CRL not signed by the certificate's issuer (same name, another key) is not believed", async () => {
    openssl(
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1']
        .concat(['-keyout', path('impostor.key'), '-out', path('impostor.pem'), '-subj', '/CN=Fleet Root'])
        .concat(['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=keyCertSign,cRLSign']),
    );
    const impostor = [
      '-config',
      path('ca.cnf'),
      '-keyfile',
      path('impostor.key'),
      '-cert',
      path('impostor.pem'),
    ];
    openssl(['ca', ...impostor, '-gencrl', '-out', path('forged.crl.pem')]);
    openssl(['crl', '-in', path('forged.crl.pem'), '-outform', 'DER', '-out', path('forged.crl')]);
    const forged = new ClientCertificateStatus({
      localCas: async () => [],
      localOcsp: async () => Buffer.alloc(0),
      fetchCrl: async () => readFileSync(path('forged.crl')),
    });
    const verdict = await check(forged, 'revoked');
    expect(verdict).toEqual({ status: 'unknown', reason: expect.stringMatching(/not signed by the issuer/) });
  });

  it('a lookup that does not answer in time is unknown, not a held-up request', async () => {
    const stuck = new ClientCertificateStatus(
      {
        localCas: () => new Promise(() => undefined),
        localOcsp: async () => Buffer.alloc(0),
        fetchCrl: async () => Buffer.alloc(0),
      },
      { lookupTimeoutMs: 50 },
    );
    expect(await check(stuck, 'good')).toEqual({ status: 'unknown', reason: 'no answer within 50 ms' });
  });

  describe('RFC 6960: the OCSP responder of the AIA when there is no CRL (responses made by openssl ocsp)', () => {
    const ocspStatus = (signer: string) =>
      new ClientCertificateStatus({
        localCas: async () => [],
        localOcsp: async () => Buffer.alloc(0),
        fetchCrl: async () => {
          throw new Error('no CRL');
        },
        fetchOcsp: async (url, request) => {
          expect(url).toBe('http://ocsp.fleet.test/');
          writeFileSync(path('ocsp.req'), request);
          openssl(
            ['ocsp', '-index', path('index.txt'), '-CA', path('ca.pem'), '-rsigner', path(`${signer}.pem`)]
              .concat([
                '-rkey',
                path(`${signer}.key`),
                '-reqin',
                path('ocsp.req'),
                '-respout',
                path('ocsp.resp'),
              ])
              .concat(['-ndays', '1']),
          );
          return readFileSync(path('ocsp.resp'));
        },
      });
    beforeAll(() => {
      const aia = 'authorityInfoAccess=OCSP;URI:http://ocsp.fleet.test/\n';
      leaf('ocspgood', aia);
      leaf('ocsprevoked', aia);
      const ca = ['-config', path('ca.cnf'), '-keyfile', path('ca.key'), '-cert', path('ca.pem')];
      openssl(['ca', ...ca, '-valid', path('ocspgood.pem')]);
      // A delegated responder (RFC 6960 4.2.2.2: issued by the CA for OCSPSigning) and an impostor.
      openssl(
        [
          'req',
          '-new',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-subj',
          '/CN=Fleet OCSP',
        ].concat(['-keyout', path('delegate.key'), '-out', path('delegate.csr')]),
      );
      writeFileSync(path('delegate.ext'), 'extendedKeyUsage=OCSPSigning\n');
      openssl(
        ['x509', '-req', '-in', path('delegate.csr'), '-CA', path('ca.pem'), '-CAkey', path('ca.key')].concat(
          ['-set_serial', '77', '-days', '1', '-out', path('delegate.pem'), '-extfile', path('delegate.ext')],
        ),
      );
      openssl(
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-days',
          '1',
        ].concat([
          '-keyout',
          path('ocspimpostor.key'),
          '-out',
          path('ocspimpostor.pem'),
          '-subj',
          '/CN=Fleet Root',
        ]),
      );
      openssl(['ca', ...ca, '-revoke', path('ocsprevoked.pem'), '-crl_reason', 'keyCompromise']);
    });

    it('answers good and revoked from a response signed by the issuer', async () => {
      const subject = ocspStatus('ca');
      expect(await check(subject, 'ocspgood')).toEqual({ status: 'good' });
      expect(await check(subject, 'ocsprevoked')).toEqual({ status: 'revoked' });
    });

    it('RFC 6960 4.2.2.2: believes a delegated responder the issuer certified for OCSPSigning', async () => {
      expect(await check(ocspStatus('delegate'), 'ocsprevoked')).toEqual({ status: 'revoked' });
    });

    it('RFC 6960 4.2.2.2: does not believe a response signed by another key (unknown)', async () => {
      const verdict = await check(ocspStatus('ocspimpostor'), 'ocsprevoked');
      expect(verdict).toEqual({
        status: 'unknown',
        reason: expect.stringMatching(/not signed by the issuer/),
      });
    });
  });

  it('a revoked verdict always refuses, whatever the policy', () => {
    expect(revocationRefusal({ status: 'revoked' }, 'soft-fail')).toBe('the client certificate is revoked');
    expect(revocationRefusal({ status: 'good' }, 'hard-fail')).toBeNull();
  });
});
