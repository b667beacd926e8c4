import { X509Certificate as NodeX509 } from 'node:crypto';
import { X509Certificate as PeculiarX509 } from '@peculiar/x509';
import { CertificateAuthority } from './certificate-builder';
import { certificatePem, parseCertificate } from './certificate';
import { parseCsr, parseCsrAsync } from './csr';
import { isPkiError } from './errors';
import { templateFromCsr } from './profile';
import { createSelfSignedCa, ocspResponderTemplate } from './ca';
import { PemLabel, toPem } from './pem';
import { KEY_ARGS, OpenSslWorkspace } from './testing/openssl';
import { TestPki, createTestPki, provider } from './testing/fixtures';
import { Oid } from './oids';

const URLS = {
  crlDistributionPoints: ['http://pki.example.test/crl/issuer-1'],
  ocspUrls: ['http://pki.example.test/ocsp/issuer-1'],
  caIssuersUrls: ['http://pki.example.test/ca/issuer-1.der'],
};

let ws: OpenSslWorkspace;
let pki: TestPki;

beforeAll(async () => {
  ws = new OpenSslWorkspace();
  pki = await createTestPki({ algorithm: 'ECDSA', curve: 'P-256' }, { urls: URLS });
  ws.write('root.pem', certificatePem(pki.root));
  ws.write('intermediate.pem', certificatePem(pki.intermediate));
});

afterAll(() => ws.remove());

async function issueFromOpenSslCsr(
  name: string,
  keyArgs: readonly string[],
  subject: string,
  extra: string[] = [],
) {
  const { csrPem } = ws.csr(name, [...keyArgs], subject, extra);
  const csr = parseCsr(csrPem);
  const issued = await pki.ca.issue(templateFromCsr(csr, { validityDays: 30, mustStaple: true }));
  ws.write(`${name}.pem`, toPem(PemLabel.certificate, issued.der));
  return { csr, issued, cert: parseCertificate(issued.der) };
}

describe('CertificateAuthority.issue', () => {
  it('issues a leaf that openssl verifies against root and intermediate', async () => {
    await issueFromOpenSslCsr('leaf', KEY_ARGS['P-256'], '/CN=www.example.test/O=Example', [
      '-addext',
      'subjectAltName=DNS:www.example.test,DNS:example.test,IP:192.0.2.7,IP:2001:db8::1',
    ]);
    const result = ws.run(['verify', '-CAfile', 'root.pem', '-untrusted', 'intermediate.pem', 'leaf.pem']);
    expect(result.output).toContain('leaf.pem: OK');
    expect(result.status).toBe(0);
    // openssl also checks the X.509 purpose for TLS servers.
    expect(
      ws.run([
        'verify',
        '-purpose',
        'sslserver',
        '-CAfile',
        'root.pem',
        '-untrusted',
        'intermediate.pem',
        'leaf.pem',
      ]).status,
    ).toBe(0);
  });

  it.each(['P-256', 'P-384', 'RSA-2048'] as const)(
    'issues from a %s CSR read by parseCsrAsync (the local CA path) what openssl verifies and prints as the parseCsr path',
    async (key) => {
      const name = `fast-${key}`;
      const { csrPem } = ws.csr(name, [...KEY_ARGS[key]], `/CN=${name}.example.test/O=Example`, [
        '-addext',
        `subjectAltName=DNS:${name}.example.test,IP:192.0.2.7`,
      ]);
      const now = new Date();
      const profile = { validityDays: 30, mustStaple: true };
      for (const [label, csr] of [
        ['fast', await parseCsrAsync(csrPem)],
        ['slow', parseCsr(csrPem)],
      ] as const) {
        const issued = await pki.ca.issue(templateFromCsr(csr, profile, now));
        ws.write(`${name}-${label}.pem`, toPem(PemLabel.certificate, issued.der));
        const verified = ws.run([
          'verify',
          '-purpose',
          'sslserver',
          '-CAfile',
          'root.pem',
          '-untrusted',
          'intermediate.pem',
          `${name}-${label}.pem`,
        ]);
        expect(verified.output).toContain(`${name}-${label}.pem: OK`);
      }
      // Everything openssl prints after the serial (which is random) is the same on both paths.
      const text = (label: string) => {
        const printed = ws.ok(['x509', '-noout', '-text', '-in', `${name}-${label}.pem`]).stdout;
        return printed.slice(printed.indexOf('Signature Algorithm'), printed.lastIndexOf('Signature Value'));
      };
      const fast = text('fast');
      expect(fast).toContain('X509v3 Subject Alternative Name');
      expect(fast).toContain('X509v3 CRL Distribution Points');
      expect(fast).toContain('TLS Feature');
      expect(fast).toBe(text('slow'));
    },
  );

  it('gives a certificate the exact validity asked for (ACME notBefore/notAfter), and refuses an empty one', async () => {
    const { csrPem } = ws.csr('window', [...KEY_ARGS['P-256']], '/CN=window.example.test');
    const csr = parseCsr(csrPem);
    const now = new Date('2026-11-29T10:00:00Z');
    const notBefore = new Date('2026-11-30T00:00:00Z');
    const notAfter = new Date('2026-12-01T12:00:00Z');
    const exact = parseCertificate(
      (await pki.ca.issue(templateFromCsr(csr, { validityDays: 30, notBefore, notAfter }, now))).der,
    );
    expect([exact.notBefore, exact.notAfter]).toEqual([notBefore, notAfter]);
    // notBefore alone: the profile's validity runs from it; notAfter alone: from now.
    const postdated = templateFromCsr(csr, { validityDays: 2, notBefore }, now);
    expect(postdated.notAfter).toEqual(new Date('2026-12-02T00:00:00Z'));
    const shortened = templateFromCsr(csr, { validityDays: 30, notAfter }, now);
    expect([shortened.notBefore, shortened.notAfter]).toEqual([now, notAfter]);
    for (const window of [{ notBefore, notAfter: notBefore }, { notAfter: new Date(now.getTime() - 1000) }]) {
      let refused: unknown;
      try {
        templateFromCsr(csr, window, now);
      } catch (error) {
        refused = error;
      }
      expect(isPkiError(refused) && refused.code).toBe('profile_invalid');
    }
  });

  it('fails openssl verification without the intermediate (the check can fail)', async () => {
    await issueFromOpenSslCsr('lonely', KEY_ARGS['P-256'], '/CN=lonely.example.test');
    const result = ws.run(['verify', '-CAfile', 'root.pem', 'lonely.pem']);
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/unable to get local issuer certificate/);
  });

  it('writes the profile: SANs, key usage, EKU, SKI/AKI, CRL DP, AIA, must-staple', async () => {
    const { cert } = await issueFromOpenSslCsr('profile', KEY_ARGS['P-256'], '/CN=profile.example.test', [
      '-addext',
      'subjectAltName=DNS:profile.example.test,IP:192.0.2.9,email:ops@example.test,URI:https://example.test/x',
    ]);
    const text = ws.ok(['x509', '-in', 'profile.pem', '-noout', '-text']).stdout;
    expect(text).toContain('Version: 3 (0x2)');
    expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
    expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature/);
    expect(text).toMatch(
      /X509v3 Extended Key Usage:\s+TLS Web Server Authentication, TLS Web Client Authentication/,
    );
    expect(text).toMatch(
      /X509v3 Subject Alternative Name:\s+DNS:profile.example.test, IP Address:192.0.2.9, email:ops@example.test, URI:https:\/\/example.test\/x/,
    );
    expect(text).toMatch(
      /X509v3 CRL Distribution Points:\s+Full Name:\s+URI:http:\/\/pki.example.test\/crl\/issuer-1/,
    );
    expect(text).toMatch(/OCSP - URI:http:\/\/pki.example.test\/ocsp\/issuer-1/);
    expect(text).toMatch(/CA Issuers - URI:http:\/\/pki.example.test\/ca\/issuer-1.der/);
    expect(text).toMatch(/TLS Feature:\s+status_request/);
    expect(text).toContain('X509v3 Subject Key Identifier');
    expect(text).toContain('X509v3 Authority Key Identifier');

    expect(cert.decoded.authorityKeyIdentifier).toEqual(pki.intermediate.decoded.subjectKeyIdentifier);
    expect(cert.decoded.mustStaple).toBe(true);
    expect(cert.decoded.crlDistributionPoints).toEqual(URLS.crlDistributionPoints);
    expect(cert.decoded.ocspUrls).toEqual(URLS.ocspUrls);
    expect(cert.decoded.caIssuersUrls).toEqual(URLS.caIssuersUrls);
    expect(cert.decoded.subjectAltNames).toEqual([
      { type: 'dns', value: 'profile.example.test' },
      { type: 'ip', value: '192.0.2.9' },
      { type: 'email', value: 'ops@example.test' },
      { type: 'uri', value: 'https://example.test/x' },
    ]);
    expect(cert.issuer.text).toBe(pki.intermediate.subject.text);
  });

  it('copies the CSR subject bytes verbatim', async () => {
    const { csr, cert } = await issueFromOpenSslCsr(
      'subject',
      KEY_ARGS['P-256'],
      '/C=DE/O=Beispiel GmbH/OU=Ops/CN=subject.example.test',
    );
    expect(cert.subject.der.equals(csr.subject.der)).toBe(true);
    expect(cert.subject.text).toBe('CN=subject.example.test,OU=Ops,O=Beispiel GmbH,C=DE');
  });

  it('agrees with node:crypto and @peculiar/x509 on what it wrote', async () => {
    const { issued } = await issueFromOpenSslCsr('cross', KEY_ARGS['P-256'], '/CN=cross.example.test', [
      '-addext',
      'subjectAltName=DNS:cross.example.test',
    ]);
    const node = new NodeX509(issued.der);
    expect(node.verify(new NodeX509(pki.intermediate.der).publicKey)).toBe(true);
    expect(node.serialNumber.toLowerCase()).toBe(issued.serialNumber);
    expect(node.subjectAltName).toBe('DNS:cross.example.test');
    expect(new Date(node.validTo).getTime()).toBe(issued.notAfter.getTime());
    const peculiar = new PeculiarX509(issued.der);
    expect(peculiar.serialNumber).toBe(issued.serialNumber);
    expect(peculiar.extensions.map((e) => e.type)).toEqual([
      Oid.basicConstraints,
      Oid.keyUsage,
      Oid.extKeyUsage,
      Oid.subjectKeyIdentifier,
      Oid.authorityKeyIdentifier,
      Oid.subjectAltName,
      Oid.crlDistributionPoints,
      Oid.authorityInfoAccess,
      Oid.tlsFeature,
    ]);
  });

  it('assigns positive 17-octet random serials (>= 128 random bits), all different', async () => {
    const { csrPem } = ws.csr('serials', [...KEY_ARGS['P-256']], '/CN=serials.example.test');
    const template = templateFromCsr(parseCsr(csrPem));
    const serials = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { serialNumber } = await pki.ca.issue(template);
      expect(serialNumber).toMatch(/^[4-7][0-9a-f]{33}$/);
      serials.add(serialNumber);
    }
    expect(serials.size).toBe(200);
  });

  it.each([
    ['RSA-2048', KEY_ARGS['RSA-2048'], 'Digital Signature, Key Encipherment'],
    ['P-384', KEY_ARGS['P-384'], 'Digital Signature'],
    ['Ed25519', KEY_ARGS.Ed25519, 'Digital Signature'],
  ])('certifies %s subject keys with a fitting key usage', async (label, keyArgs, usage) => {
    const name = `key-${label}`;
    await issueFromOpenSslCsr(name, keyArgs, `/CN=${label.toLowerCase()}.example.test`);
    expect(
      ws.run(['verify', '-CAfile', 'root.pem', '-untrusted', 'intermediate.pem', `${name}.pem`]).status,
    ).toBe(0);
    expect(ws.ok(['x509', '-in', `${name}.pem`, '-noout', '-text']).stdout).toMatch(
      new RegExp(`X509v3 Key Usage: critical\\s+${usage}\\n`),
    );
  });

  it.each([
    ['RSA 2048', { algorithm: 'RSA', size: 2048 }],
    ['ECDSA P-384', { algorithm: 'ECDSA', curve: 'P-384' }],
    ['Ed25519', { algorithm: 'Ed25519' }],
  ] as const)(
    'builds a root, intermediate and leaf with %s CA keys that openssl verifies',
    async (label, spec) => {
      const other = await createTestPki(spec);
      const dir = `ca-${label.replace(/ /g, '-')}`;
      ws.write(`${dir}-root.pem`, certificatePem(other.root));
      ws.write(`${dir}-int.pem`, certificatePem(other.intermediate));
      const { csrPem } = ws.csr(`${dir}-leaf`, [...KEY_ARGS['P-256']], '/CN=leaf.example.test');
      const issued = await other.ca.issue(templateFromCsr(parseCsr(csrPem)));
      ws.write(`${dir}-leaf.pem`, toPem(PemLabel.certificate, issued.der));
      const result = ws.run([
        'verify',
        '-CAfile',
        `${dir}-root.pem`,
        '-untrusted',
        `${dir}-int.pem`,
        `${dir}-leaf.pem`,
      ]);
      expect(result.output).toContain(`${dir}-leaf.pem: OK`);
      const rootText = ws.ok(['x509', '-in', `${dir}-root.pem`, '-noout', '-text']).stdout;
      expect(rootText).toMatch(/X509v3 Basic Constraints: critical\s+CA:TRUE, pathlen:1/);
      expect(rootText).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Certificate Sign, CRL Sign/);
    },
  );

  it('clamps notAfter to the CA certificate and can refuse instead', async () => {
    const { csrPem } = ws.csr('clamp', [...KEY_ARGS['P-256']], '/CN=clamp.example.test');
    const csr = parseCsr(csrPem);
    const template = templateFromCsr(csr, { validityDays: 365 * 50 });
    const issued = await pki.ca.issue(template);
    expect(issued.notAfter.getTime()).toBe(pki.intermediate.notAfter.getTime());
    const strict = new CertificateAuthority({
      certificate: pki.intermediate,
      signer: pki.intermediateSigner,
      beyondIssuerValidity: 'refuse',
    });
    await expect(strict.issue(template)).rejects.toMatchObject({ code: 'profile_invalid' });
  });

  it('encodes dates from 2050 as GeneralizedTime and before as UTCTime (RFC 5280 4.1.2.5)', async () => {
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const issued = await createSelfSignedCa({
      subject: [['CN', 'Long Root']],
      signer,
      notBefore: new Date('2049-12-31T23:59:59Z'),
      notAfter: new Date('2050-01-01T00:00:00Z'),
    });
    expect(issued.der.includes(Buffer.from('491231235959Z'))).toBe(true);
    expect(issued.der.includes(Buffer.from('20500101000000Z'))).toBe(true);
    const cert = parseCertificate(issued.der);
    expect(cert.notBefore.toISOString()).toBe('2049-12-31T23:59:59.000Z');
    expect(cert.notAfter.toISOString()).toBe('2050-01-01T00:00:00.000Z');
  });

  it('refuses an issuer certificate that is not a CA', async () => {
    const { csrPem, keyPem } = ws.csr('notca', [...KEY_ARGS['P-256']], '/CN=notca.example.test');
    const issued = await pki.ca.issue(templateFromCsr(parseCsr(csrPem)));
    const { SoftwareSigner } = await import('./keys/key-provider');
    expect(
      () =>
        new CertificateAuthority({ certificate: issued.der, signer: SoftwareSigner.fromPrivateKey(keyPem) }),
    ).toThrow(expect.objectContaining({ code: 'issuer_invalid' }));
  });

  it('refuses a signer whose key is not the CA certificate key', () => {
    expect(() => new CertificateAuthority({ certificate: pki.intermediate, signer: pki.rootSigner })).toThrow(
      expect.objectContaining({ code: 'key_mismatch' }),
    );
  });

  it.each([
    [{ type: 'dns', value: 'bad_name.example.test' }],
    [{ type: 'dns', value: 'a..b' }],
    [{ type: 'dns', value: '*.*.example.test' }],
    [{ type: 'dns', value: 'münchen.example' }],
    [{ type: 'dns', value: `${'a'.repeat(64)}.example` }],
    [{ type: 'ip', value: '300.1.1.1' }],
    [{ type: 'ip', value: 'fe80::1%eth0' }],
    [{ type: 'email', value: 'no-at-sign' }],
    [{ type: 'uri', value: 'not a uri' }],
    [{ type: 'x400', value: 'x' }],
  ])('refuses the subject alternative name %j', async (san) => {
    const { csrPem } = ws.csr('san', [...KEY_ARGS['P-256']], '/CN=san.example.test');
    const template = { ...templateFromCsr(parseCsr(csrPem)), subjectAltNames: [san as never] };
    await expect(pki.ca.issue(template)).rejects.toMatchObject({ code: 'san_invalid' });
  });

  it('accepts wildcard, IPv6 and IPv4-mapped names', async () => {
    const { csrPem } = ws.csr('wild', [...KEY_ARGS['P-256']], '/CN=wild.example.test');
    const issued = await pki.ca.issue({
      ...templateFromCsr(parseCsr(csrPem)),
      subjectAltNames: [
        { type: 'dns', value: '*.Example.TEST' },
        { type: 'ip', value: '2001:db8:0:0:1::1' },
        { type: 'ip', value: '::ffff:192.0.2.1' },
      ],
    });
    expect(parseCertificate(issued.der).decoded.subjectAltNames).toEqual([
      { type: 'dns', value: '*.example.test' },
      { type: 'ip', value: '2001:db8::1:0:0:1' },
      { type: 'ip', value: '::ffff:c000:201' },
    ]);
  });

  it('needs a subject or a SAN, and makes SAN critical when the subject is empty', async () => {
    const { csrPem } = ws.csr('empty', [...KEY_ARGS['P-256']], '/');
    const csr = parseCsr(csrPem);
    await expect(pki.ca.issue(templateFromCsr(csr))).rejects.toMatchObject({ code: 'profile_invalid' });
    const issued = await pki.ca.issue(
      templateFromCsr(csr, { subjectAltNames: [{ type: 'dns', value: 'only-san.example.test' }] }),
    );
    const cert = parseCertificate(issued.der);
    expect(cert.extensions.find((e) => e.oid === Oid.subjectAltName)?.critical).toBe(true);
    ws.write('empty.pem', certificatePem(cert));
    expect(
      ws.run(['verify', '-CAfile', 'root.pem', '-untrusted', 'intermediate.pem', 'empty.pem']).status,
    ).toBe(0);
  });

  it('refuses notAfter before notBefore and invalid serials', async () => {
    const { csrPem } = ws.csr('times', [...KEY_ARGS['P-256']], '/CN=times.example.test');
    const template = templateFromCsr(parseCsr(csrPem));
    await expect(pki.ca.issue({ ...template, notAfter: template.notBefore })).rejects.toMatchObject({
      code: 'profile_invalid',
    });
    await expect(pki.ca.issue({ ...template, serialNumber: Buffer.from([0x80, 1]) })).rejects.toMatchObject({
      code: 'serial_invalid',
    });
    await expect(pki.ca.issue({ ...template, serialNumber: Buffer.alloc(21, 1) })).rejects.toMatchObject({
      code: 'serial_invalid',
    });
    await expect(pki.ca.issue({ ...template, serialNumber: Buffer.from([0]) })).rejects.toMatchObject({
      code: 'serial_invalid',
    });
  });

  it('refuses a bad pathLength and a subject that is not DER, with PkiErrors', async () => {
    const { csrPem } = ws.csr('bad-input', [...KEY_ARGS['P-256']], '/CN=bad-input.example.test');
    const template = templateFromCsr(parseCsr(csrPem));
    for (const pathLength of [-1, 1.5, 256]) {
      await expect(pki.ca.issue({ ...template, ca: { pathLength } })).rejects.toMatchObject({
        code: 'profile_invalid',
      });
    }
    await expect(pki.ca.issue({ ...template, subject: Buffer.from('3100', 'hex') })).rejects.toMatchObject({
      code: 'der_invalid',
    });
    await expect(pki.ca.issue({ ...template, notBefore: new Date('garbage') })).rejects.toMatchObject({
      code: 'profile_invalid',
    });
  });

  it('makes a delegated OCSP responder certificate with OCSPSigning and ocsp-nocheck', async () => {
    const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const now = Date.now();
    const issued = await pki.ca.issue(
      ocspResponderTemplate({
        subject: [['CN', 'Test OCSP Responder']],
        publicKey: signer.publicKey,
        notBefore: new Date(now - 60_000),
        notAfter: new Date(now + 7 * 86_400_000),
      }),
    );
    ws.write('responder.pem', toPem(PemLabel.certificate, issued.der));
    const text = ws.ok(['x509', '-in', 'responder.pem', '-noout', '-text']).stdout;
    expect(text).toMatch(/X509v3 Extended Key Usage:\s+OCSP Signing/);
    expect(text).toContain('OCSP No Check');
    expect(text).not.toContain('CRL Distribution Points');
    expect(
      ws.run([
        'verify',
        '-purpose',
        'ocsphelper',
        '-CAfile',
        'root.pem',
        '-untrusted',
        'intermediate.pem',
        'responder.pem',
      ]).status,
    ).toBe(0);
  });

  it('returns PkiError, never another error, for keys outside the supported set', async () => {
    const { csrPem } = ws.csr('policy', [...KEY_ARGS['P-256']], '/CN=policy.example.test');
    const template = templateFromCsr(parseCsr(csrPem), { keyPolicy: { allowed: ['RSA'] } });
    const error = await pki.ca.issue(template).catch((e: unknown) => e);
    expect(isPkiError(error, 'key_not_allowed')).toBe(true);
  });
});
