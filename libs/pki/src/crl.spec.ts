import { X509Certificate, X509Crl } from '@peculiar/x509';
import { Certificate, certificatePem, parseCertificate } from './certificate';
import { CrlIssuer, RevokedEntry, parseCrl, verifyCrl } from './crl';
import { parseCsr } from './csr';
import { PkiError } from './errors';
import { PemLabel, toPem } from './pem';
import { templateFromCsr } from './profile';
import { REVOCATION_REASONS, parseRevocationReason, revocationReasonFromCode } from './revocation-reason';
import { TestPki, createTestPki, provider } from './testing/fixtures';
import { KEY_ARGS, OpenSslWorkspace } from './testing/openssl';

let ws: OpenSslWorkspace;
let pki: TestPki;
let crlIssuer: CrlIssuer;
let revokedLeaf: Certificate;
let goodLeaf: Certificate;

const thisUpdate = new Date();
thisUpdate.setUTCMilliseconds(0);

beforeAll(async () => {
  ws = new OpenSslWorkspace();
  pki = await createTestPki();
  crlIssuer = new CrlIssuer({ certificate: pki.intermediate, signer: pki.intermediateSigner });
  ws.write('root.pem', certificatePem(pki.root));
  ws.write('intermediate.pem', certificatePem(pki.intermediate));
  ws.write('chain.pem', certificatePem(pki.intermediate) + certificatePem(pki.root));
  for (const name of ['revoked', 'good']) {
    const { csrPem } = ws.csr(name, [...KEY_ARGS['P-256']], `/CN=${name}.example.test`);
    const cert = parseCertificate((await pki.ca.issue(templateFromCsr(parseCsr(csrPem)))).der);
    ws.write(`${name}.pem`, certificatePem(cert));
    if (name === 'revoked') revokedLeaf = cert;
    else goodLeaf = cert;
  }
});
afterAll(() => ws.remove());

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PkiError) return error.code;
    throw error;
  }
  return undefined;
}

function entries(): RevokedEntry[] {
  return [
    {
      serialNumber: revokedLeaf.serialNumber,
      revokedAt: new Date(thisUpdate.getTime() - 60_000),
      reason: 'keyCompromise',
    },
    { serialNumber: '0a', revokedAt: new Date('2030-01-02T03:04:05Z'), reason: 'superseded' },
    { serialNumber: Buffer.from([0xff, 0x01]), revokedAt: new Date('2024-05-06T07:08:09Z') },
    {
      serialNumber: 'abcdef',
      revokedAt: new Date('2051-01-01T00:00:00Z'),
      reason: 'certificateHold',
      invalidityDate: new Date('2024-01-01T00:00:00Z'),
    },
  ];
}

describe(CrlIssuer.name, () => {
  it('builds a CRL that openssl reads and verifies against the issuing CA', async () => {
    const der = await crlIssuer.build({ crlNumber: 42, thisUpdate, entries: entries() });
    ws.write('crl.der', der);
    const result = ws.run([
      'crl',
      '-inform',
      'DER',
      '-in',
      'crl.der',
      '-noout',
      '-text',
      '-CAfile',
      'chain.pem',
    ]);
    expect(result.output).toContain('verify OK');
    expect(result.status).toBe(0);
    const text = result.stdout;
    expect(text).toContain('Version 2 (0x1)');
    expect(text).toMatch(/X509v3 CRL Number:\s+42/);
    expect(text).toContain('X509v3 Authority Key Identifier');
    expect(text).toMatch(
      new RegExp(
        `Serial Number: ${revokedLeaf.serialNumber.toUpperCase()}\\s+Revocation Date: .*\\s+CRL entry extensions:\\s+X509v3 CRL Reason Code:\\s+Key Compromise`,
      ),
    );
    expect(text).toMatch(
      /Serial Number: 0A\s+Revocation Date: Jan\s+2 03:04:05 2030 GMT\s+CRL entry extensions:\s+X509v3 CRL Reason Code:\s+Superseded/,
    );
    expect(text).toMatch(
      /Serial Number: FF01\s+Revocation Date: May\s+6 07:08:09 2024 GMT\s+Serial Number: ABCDEF/,
    );
    expect(text).toMatch(
      /Revocation Date: Jan\s+1 00:00:00 2051 GMT\s+CRL entry extensions:\s+X509v3 CRL Reason Code:\s+Certificate Hold\s+Invalidity Date:\s+Jan\s+1 00:00:00 2024 GMT/,
    );
    const next = new Date(thisUpdate.getTime() + 24 * 3600_000);
    const expectedNext = next
      .toUTCString()
      .replace(
        /^\w+, (\d+) (\w+) (\d+) ([\d:]+) GMT$/,
        (_m, d, mo, y, t) => `${mo} ${String(Number(d)).padStart(2, ' ')} ${t} ${y} GMT`,
      );
    expect(text).toContain(`Next Update: ${expectedNext}`);
  });

  it('makes openssl verify -crl_check report the revoked leaf and accept the other', async () => {
    const der = await crlIssuer.build({ crlNumber: 43, thisUpdate, entries: entries() });
    ws.write('crl.pem', toPem(PemLabel.crl, der));
    const revoked = ws.run([
      'verify',
      '-crl_check',
      '-CRLfile',
      'crl.pem',
      '-CAfile',
      'root.pem',
      '-untrusted',
      'intermediate.pem',
      'revoked.pem',
    ]);
    expect(revoked.status).not.toBe(0);
    expect(revoked.output).toMatch(/certificate revoked/);
    const good = ws.run([
      'verify',
      '-crl_check',
      '-CRLfile',
      'crl.pem',
      '-CAfile',
      'root.pem',
      '-untrusted',
      'intermediate.pem',
      'good.pem',
    ]);
    expect(good.output).toContain('good.pem: OK');
    expect(parseCrl(der).entries.map((e) => e.serialNumber)).not.toContain(goodLeaf.serialNumber);
  });

  it('makes an empty CRL (no revokedCertificates field) that openssl accepts', async () => {
    const der = await crlIssuer.build({ crlNumber: 1, thisUpdate, entries: [] });
    ws.write('empty.der', der);
    const result = ws.run([
      'crl',
      '-inform',
      'DER',
      '-in',
      'empty.der',
      '-noout',
      '-text',
      '-CAfile',
      'chain.pem',
    ]);
    expect(result.output).toContain('verify OK');
    expect(result.stdout).toContain('No Revoked Certificates.');
    expect(parseCrl(der).entries).toEqual([]);
  });

  it('reads back what it wrote (parseCrl, @peculiar/x509) and verifies only with the right CA', async () => {
    const der = await crlIssuer.build({ crlNumber: 2n ** 100n, thisUpdate, entries: entries() });
    const crl = parseCrl(der);
    expect(crl.version).toBe(2);
    expect(crl.crlNumber).toBe(2n ** 100n);
    expect(crl.thisUpdate).toEqual(thisUpdate);
    expect(crl.nextUpdate).toEqual(new Date(thisUpdate.getTime() + 24 * 3600_000));
    expect(crl.authorityKeyIdentifier).toEqual(pki.intermediate.decoded.subjectKeyIdentifier);
    expect(crl.entries).toEqual([
      {
        serialNumber: revokedLeaf.serialNumber,
        revocationDate: new Date(thisUpdate.getTime() - 60_000),
        reason: 'keyCompromise',
      },
      { serialNumber: '0a', revocationDate: new Date('2030-01-02T03:04:05Z'), reason: 'superseded' },
      { serialNumber: 'ff01', revocationDate: new Date('2024-05-06T07:08:09Z') },
      {
        serialNumber: 'abcdef',
        revocationDate: new Date('2051-01-01T00:00:00Z'),
        reason: 'certificateHold',
        invalidityDate: new Date('2024-01-01T00:00:00Z'),
      },
    ]);
    expect(verifyCrl(crl, pki.intermediate)).toBe(true);
    expect(verifyCrl(crl, pki.root)).toBe(false);
    const peculiar = new X509Crl(der);
    expect(peculiar.entries).toHaveLength(4);
    expect(await peculiar.verify({ publicKey: new X509Certificate(pki.intermediate.der) })).toBe(true);
    expect(await peculiar.verify({ publicKey: new X509Certificate(pki.root.der) })).toBe(false);
    expect(peculiar.issuer).toBe('C=US, O=Certlane Test, CN=Test Issuing CA ECDSA');
  });

  it.each([
    ['RSA 2048', { algorithm: 'RSA', size: 2048 }],
    ['Ed25519', { algorithm: 'Ed25519' }],
  ] as const)('signs CRLs with %s CA keys that openssl verifies', async (label, spec) => {
    const other = await createTestPki(spec);
    const issuer = new CrlIssuer({ certificate: other.intermediate, signer: other.intermediateSigner });
    const file = `crl-${label.replace(' ', '-')}.der`;
    ws.write(file, await issuer.build({ crlNumber: 7, thisUpdate, entries: entries() }));
    ws.write(`${file}.chain.pem`, certificatePem(other.intermediate) + certificatePem(other.root));
    expect(
      ws.run(['crl', '-inform', 'DER', '-in', file, '-noout', '-CAfile', `${file}.chain.pem`]).output,
    ).toContain('verify OK');
  });

  it('streams ten thousand entries from a generator', async () => {
    function* many() {
      for (let i = 1; i <= 10_000; i++)
        yield {
          serialNumber: i.toString(16),
          revokedAt: new Date(1_700_000_000_000 + i * 1000),
          reason: 'superseded' as const,
        };
    }
    const der = await crlIssuer.build({ crlNumber: 9, thisUpdate, entries: many() });
    ws.write('big.der', der);
    const result = ws.run([
      'crl',
      '-inform',
      'DER',
      '-in',
      'big.der',
      '-noout',
      '-text',
      '-CAfile',
      'chain.pem',
    ]);
    expect(result.output).toContain('verify OK');
    expect(result.stdout.match(/Serial Number:/g)).toHaveLength(10_000);
    expect(parseCrl(der).entries[9_999]).toEqual({
      serialNumber: '2710',
      revocationDate: new Date(1_700_000_000_000 + 10_000_000),
      reason: 'superseded',
    });
  });

  it.each([
    [
      'removeFromCRL in a base CRL',
      [{ serialNumber: '01', revokedAt: new Date(), reason: 'removeFromCRL' }],
      'revocation_reason_invalid',
    ],
    [
      'an unknown reason',
      [{ serialNumber: '01', revokedAt: new Date(), reason: 'bogus' }],
      'revocation_reason_invalid',
    ],
    ['a non-hex serial', [{ serialNumber: 'xyz', revokedAt: new Date() }], 'serial_invalid'],
    ['a zero serial', [{ serialNumber: '00', revokedAt: new Date() }], 'serial_invalid'],
    ['a 21-octet serial', [{ serialNumber: '7f'.repeat(21), revokedAt: new Date() }], 'serial_invalid'],
    ['an invalid revocation date', [{ serialNumber: '01', revokedAt: new Date(NaN) }], 'profile_invalid'],
  ])('refuses %s', async (_label, list, expected) => {
    expect(await code(crlIssuer.build({ crlNumber: 1, thisUpdate, entries: list as RevokedEntry[] }))).toBe(
      expected,
    );
  });

  it('refuses a non-integer CRL number, an invalid thisUpdate and a missing revocation date', async () => {
    expect(await code(crlIssuer.build({ crlNumber: 1.5, thisUpdate, entries: [] }))).toBe('profile_invalid');
    expect(
      await code(crlIssuer.build({ crlNumber: '7' as unknown as number, thisUpdate, entries: [] })),
    ).toBe('profile_invalid');
    expect(await code(crlIssuer.build({ crlNumber: 1, thisUpdate: new Date(NaN), entries: [] }))).toBe(
      'profile_invalid',
    );
    const noDate = [{ serialNumber: '01' }] as unknown as RevokedEntry[];
    expect(await code(crlIssuer.build({ crlNumber: 1, thisUpdate, entries: noDate }))).toBe(
      'profile_invalid',
    );
  });

  it('refuses nextUpdate not after thisUpdate and negative CRL numbers', async () => {
    expect(
      await code(crlIssuer.build({ crlNumber: 1, thisUpdate, nextUpdate: thisUpdate, entries: [] })),
    ).toBe('profile_invalid');
    expect(await code(crlIssuer.build({ crlNumber: -1, thisUpdate, entries: [] }))).toBe('profile_invalid');
  });

  it('refuses an issuer without cRLSign and a signer of another key', async () => {
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const noCrlSign = parseCertificate(
      (
        await pki.rootCa.issue({
          publicKey: signer.publicKey,
          subject: [['CN', 'No CRL Sign']],
          notBefore: new Date(Date.now() - 1000),
          notAfter: new Date(Date.now() + 86_400_000),
          ca: {},
          keyUsage: ['keyCertSign'],
        })
      ).der,
    );
    expect(() => new CrlIssuer({ certificate: noCrlSign, signer })).toThrow(
      expect.objectContaining({ code: 'issuer_invalid' }),
    );
    expect(() => new CrlIssuer({ certificate: pki.intermediate, signer })).toThrow(
      expect.objectContaining({ code: 'key_mismatch' }),
    );
  });
});

describe(parseCrl.name, () => {
  it('reads an openssl-made CRL', () => {
    ws.write(
      'ca.cnf',
      [
        '[ca]',
        'default_ca = d',
        '[d]',
        'database = index.txt',
        'crlnumber = crlnumber',
        'default_md = sha256',
        'default_crl_days = 1',
        '',
      ].join('\n'),
    );
    ws.write('index.txt', '');
    ws.write('crlnumber', '1000\n');
    ws.ok([
      'req',
      '-x509',
      ...KEY_ARGS['P-256'],
      '-nodes',
      '-keyout',
      'ossl-ca.key',
      '-subj',
      '/CN=OpenSSL CA',
      '-out',
      'ossl-ca.pem',
    ]);
    ws.ok([
      'ca',
      '-config',
      'ca.cnf',
      '-gencrl',
      '-keyfile',
      'ossl-ca.key',
      '-cert',
      'ossl-ca.pem',
      '-out',
      'ossl.crl',
    ]);
    const crl = parseCrl(ws.readText('ossl.crl'));
    expect(crl.crlNumber).toBe(0x1000n);
    expect(crl.issuer.text).toBe('CN=OpenSSL CA');
    expect(verifyCrl(crl, ws.readText('ossl-ca.pem'))).toBe(true);
  });

  it('fails truncations with a PkiError', async () => {
    const der = await crlIssuer.build({ crlNumber: 5, thisUpdate, entries: entries() });
    for (let cut = 0; cut < der.length; cut++) {
      let caught: unknown;
      try {
        parseCrl(der.subarray(0, cut));
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PkiError);
    }
  });
});

describe('revocation reasons', () => {
  it('uses the RFC 5280 codes under the camelCase names of spec 2.16', () => {
    expect(REVOCATION_REASONS).toEqual({
      unspecified: 0,
      keyCompromise: 1,
      caCompromise: 2,
      affiliationChanged: 3,
      superseded: 4,
      cessationOfOperation: 5,
      certificateHold: 6,
      removeFromCRL: 8,
      privilegeWithdrawn: 9,
      aaCompromise: 10,
    });
  });

  it('accepts the RFC ASN.1 spellings and refuses anything else', () => {
    expect(parseRevocationReason('cACompromise')).toBe('caCompromise');
    expect(parseRevocationReason('aACompromise')).toBe('aaCompromise');
    for (const bad of ['KeyCompromise', 'key_compromise', '', 7, null, 'toString', '__proto__']) {
      expect(() => parseRevocationReason(bad)).toThrow(
        expect.objectContaining({ code: 'revocation_reason_invalid' }),
      );
    }
    expect(() => revocationReasonFromCode(7)).toThrow(
      expect.objectContaining({ code: 'revocation_reason_invalid' }),
    );
  });
});
