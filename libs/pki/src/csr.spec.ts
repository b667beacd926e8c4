import { webcrypto } from 'node:crypto';
import {
  ExtensionsAttribute,
  Pkcs10CertificateRequest,
  Pkcs10CertificateRequestGenerator,
  SubjectAlternativeNameExtension,
} from '@peculiar/x509';
import { createCsr, parseCsr, parseCsrAsync } from './csr';
import { PkiError } from './errors';
import { SoftwareKeyProvider } from './keys/key-provider';
import { Oid } from './oids';
import { PemLabel, decodeSingle, toPem } from './pem';
import { KEY_ARGS, OpenSslWorkspace } from './testing/openssl';

let ws: OpenSslWorkspace;
beforeAll(() => (ws = new OpenSslWorkspace()));
afterAll(() => ws.remove());

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof PkiError) return error.code;
    throw error;
  }
  return undefined;
}

const derOf = (pem: string) =>
  decodeSingle(pem, [PemLabel.certificateRequest], { maxBytes: 65536, what: 'test' });

describe(parseCsr.name, () => {
  it.each([
    ['P-256', 'ECDSA-P-256', 'ecdsa-with-SHA256'],
    ['P-384', 'ECDSA-P-384', 'ecdsa-with-SHA256'],
    ['RSA-2048', 'RSA-2048', 'sha256WithRSAEncryption'],
    ['RSA-3072', 'RSA-3072', 'sha256WithRSAEncryption'],
    ['RSA-4096', 'RSA-4096', 'sha256WithRSAEncryption'],
    ['Ed25519', 'Ed25519', 'Ed25519'],
  ] as const)('reads and verifies an openssl %s CSR', (key, description, algorithm) => {
    const { csrPem } = ws.csr(`csr-${key}`, [...KEY_ARGS[key]], '/C=US/O=Example/CN=host.example.test');
    const csr = parseCsr(csrPem);
    expect(csr.publicKey.description).toBe(description);
    expect(csr.signatureAlgorithm.name).toBe(algorithm);
    expect(csr.subject.text).toBe('CN=host.example.test,O=Example,C=US');
    expect(csr.subject.commonName).toBe('host.example.test');
    // The same CSR as @peculiar/x509 sees it.
    const peculiar = new Pkcs10CertificateRequest(csr.der);
    expect(peculiar.subject).toBe('C=US, O=Example, CN=host.example.test');
  });

  it('reads SANs, requested extensions and attributes (challengePassword, unstructuredName)', () => {
    ws.write(
      'attrs.cnf',
      [
        '[req]',
        'prompt = no',
        'distinguished_name = dn',
        'attributes = attrs',
        'req_extensions = ext',
        '[dn]',
        'CN = attrs.example.test',
        '[attrs]',
        'challengePassword = s3cret-challenge',
        'unstructuredName = Unit 7',
        '[ext]',
        'subjectAltName = DNS:attrs.example.test, IP:10.1.2.3, email:a@example.test, URI:spiffe://example.test/w',
        'keyUsage = critical, digitalSignature, keyAgreement',
        'extendedKeyUsage = clientAuth, 1.3.6.1.4.1.99999.1',
        'basicConstraints = critical, CA:FALSE',
        '1.3.6.1.5.5.7.1.24 = DER:30:03:02:01:05',
        '',
      ].join('\n'),
    );
    ws.ok([
      'req',
      '-new',
      ...KEY_ARGS['P-256'],
      '-nodes',
      '-keyout',
      'attrs.key',
      '-config',
      'attrs.cnf',
      '-out',
      'attrs.csr',
    ]);
    const csr = parseCsr(ws.readText('attrs.csr'));
    expect(csr.subjectAltNames).toEqual([
      { type: 'dns', value: 'attrs.example.test' },
      { type: 'ip', value: '10.1.2.3' },
      { type: 'email', value: 'a@example.test' },
      { type: 'uri', value: 'spiffe://example.test/w' },
    ]);
    expect(csr.requested.keyUsage).toEqual(['digitalSignature', 'keyAgreement']);
    expect(csr.requested.extendedKeyUsage).toEqual(['clientAuth', '1.3.6.1.4.1.99999.1']);
    expect(csr.requested.basicConstraints).toEqual({ ca: false, critical: true });
    expect(csr.requested.mustStaple).toBe(true);
    expect(csr.requestedExtensions.find((e) => e.oid === Oid.keyUsage)?.critical).toBe(true);
    expect(csr.challengePassword).toBe('s3cret-challenge');
    expect(csr.attributes.map((a) => a.oid).sort()).toEqual(
      [Oid.challengePassword, Oid.extensionRequest, Oid.unstructuredName].sort(),
    );
  });

  it('accepts the NEW CERTIFICATE REQUEST label, CRLF line ends, bare base64 and DER', () => {
    const { csrPem } = ws.csr('forms', [...KEY_ARGS['P-256']], '/CN=forms.example.test');
    const der = derOf(csrPem);
    const forms = [
      csrPem.replace(/CERTIFICATE REQUEST/g, 'NEW CERTIFICATE REQUEST'),
      csrPem.replace(/\n/g, '\r\n') + '\r\n\r\n',
      der.toString('base64'),
      der,
    ];
    for (const form of forms) expect(parseCsr(form).der).toEqual(der);
  });

  it.each([
    ['RSA-1024', 'key_too_weak'],
    ['P-521', 'curve_unsupported'],
    ['secp256k1', 'curve_unsupported'],
    ['Ed448', 'key_algorithm_unsupported'],
  ] as const)('refuses a %s key with %s', (key, expected) => {
    const { csrPem } = ws.csr(`weak-${key}`, [...KEY_ARGS[key]], '/CN=weak.example.test');
    expect(code(() => parseCsr(csrPem))).toBe(expected);
    // Described, not certified, when the caller opts out of the key policy.
    if (key !== 'Ed448') {
      expect(parseCsr(csrPem, { keyPolicy: false }).publicKey.description).toBe(
        key === 'RSA-1024' ? 'RSA-1024' : `ECDSA-${key}`,
      );
    }
  });

  it('refuses an RSA size between the supported ones with key_size_unsupported', () => {
    ws.ok(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2304', '-out', 'rsa2304.key']);
    ws.ok(['req', '-new', '-key', 'rsa2304.key', '-subj', '/CN=odd.example.test', '-out', 'rsa2304.csr']);
    expect(code(() => parseCsr(ws.readText('rsa2304.csr')))).toBe('key_size_unsupported');
  });

  it('applies a profile allow-list with key_not_allowed', () => {
    const { csrPem } = ws.csr('allow', [...KEY_ARGS['P-384']], '/CN=allow.example.test');
    expect(code(() => parseCsr(csrPem, { keyPolicy: { allowed: ['ECDSA-P-256', 'RSA'] } }))).toBe(
      'key_not_allowed',
    );
    expect(parseCsr(csrPem, { keyPolicy: { allowed: ['ECDSA'] } }).publicKey.curve).toBe('P-384');
  });

  it('refuses a SHA-1 signature as signature_algorithm_weak', () => {
    ws.ok([
      'req',
      '-new',
      ...KEY_ARGS['RSA-2048'],
      '-nodes',
      '-keyout',
      'sha1.key',
      '-sha1',
      '-subj',
      '/CN=sha1.example.test',
      '-out',
      'sha1.csr',
    ]);
    expect(code(() => parseCsr(ws.readText('sha1.csr')))).toBe('signature_algorithm_weak');
  });

  it('refuses a CSR carrying an attribute type twice (der_invalid): readers disagree on which one counts', async () => {
    const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
    const extensionRequest = (value: string) =>
      new ExtensionsAttribute([new SubjectAlternativeNameExtension([{ type: 'dns', value }])]);
    const csr = await Pkcs10CertificateRequestGenerator.create(
      {
        name: 'CN=device-1',
        keys: keys as unknown as Parameters<typeof Pkcs10CertificateRequestGenerator.create>[0]['keys'],
        signingAlgorithm: algorithm,
        attributes: [extensionRequest('device-1.example'), extensionRequest('*.corp.example')],
      },
      webcrypto as unknown as Parameters<typeof Pkcs10CertificateRequestGenerator.create>[1],
    );
    expect(code(() => parseCsr(Buffer.from(csr.rawData)))).toBe('der_invalid');
  });

  it('refuses a CSR whose signature or signed content was altered (csr_signature_invalid)', () => {
    const { csrPem } = ws.csr('tamper', [...KEY_ARGS['RSA-2048']], '/CN=tamper.example.test');
    const der = derOf(csrPem);
    const badSignature = Buffer.from(der);
    badSignature[badSignature.length - 10] ^= 0x01;
    expect(code(() => parseCsr(badSignature))).toBe('csr_signature_invalid');
    const badSubject = Buffer.from(der);
    const at = badSubject.indexOf(Buffer.from('tamper'));
    badSubject[at] = 'T'.charCodeAt(0);
    expect(code(() => parseCsr(badSubject))).toBe('csr_signature_invalid');
    expect(parseCsr(badSubject, { verifySignature: false }).subject.commonName).toBe('Tamper.example.test');
  });

  it('refuses an ECDSA signature that is not even DER (csr_signature_invalid, no exception from OpenSSL)', () => {
    const { csrPem } = ws.csr('ecbad', [...KEY_ARGS['P-256']], '/CN=ecbad.example.test');
    const der = derOf(csrPem);
    const corrupted = Buffer.from(der);
    // The signature BIT STRING holds an ECDSA-Sig-Value SEQUENCE; break its tag.
    const signatureStart = der.length - parseCsr(der).signature.length;
    expect(corrupted[signatureStart]).toBe(0x30);
    corrupted[signatureStart] = 0x31;
    expect(code(() => parseCsr(corrupted))).toBe('csr_signature_invalid');
  });

  it.each([
    ['truncated DER', (der: Buffer) => der.subarray(0, der.length - 5), 'der_truncated'],
    ['trailing garbage', (der: Buffer) => Buffer.concat([der, Buffer.from([0, 0])]), 'der_invalid'],
    [
      'a certificate instead of a CSR',
      () => toPem('CERTIFICATE', Buffer.from('3003020101', 'hex')),
      'pem_label_mismatch',
    ],
    ['a private key instead of a CSR', (der: Buffer) => toPem('PRIVATE KEY', der), 'pem_label_mismatch'],
    [
      'oversize input',
      () => Buffer.concat([Buffer.from([0x30, 0x83, 0x01, 0x86, 0xa0]), Buffer.alloc(100_000)]),
      'input_too_large',
    ],
    [
      'oversize PEM',
      () =>
        `-----BEGIN CERTIFICATE REQUEST-----\n${'QUFB\n'.repeat(30_000)}-----END CERTIFICATE REQUEST-----\n`,
      'input_too_large',
    ],
    [
      'version 3',
      (der: Buffer) => {
        const copy = Buffer.from(der);
        copy[copy.indexOf(Buffer.from([0x02, 0x01, 0x00])) + 2] = 3;
        return copy;
      },
      'der_invalid',
    ],
    [
      // Read as v1 (Ruby's OpenSSL encoders wrote 2): past the version, the changed bytes break the signature.
      'version 2',
      (der: Buffer) => {
        const copy = Buffer.from(der);
        copy[copy.indexOf(Buffer.from([0x02, 0x01, 0x00])) + 2] = 2;
        return copy;
      },
      'csr_signature_invalid',
    ],
  ] as const)('reports %s with %s', (_label, mutate, expected) => {
    const { csrPem } = ws.csr('malformed', [...KEY_ARGS['P-256']], '/CN=malformed.example.test');
    expect(code(() => parseCsr(mutate(derOf(csrPem))))).toBe(expected);
  });

  it('fails every truncation and byte corruption with a PkiError, never a crash', () => {
    const { csrPem } = ws.csr('fuzz', [...KEY_ARGS['P-256']], '/CN=fuzz.example.test', [
      '-addext',
      'subjectAltName=DNS:fuzz.example.test',
    ]);
    const der = derOf(csrPem);
    for (let cut = 0; cut < der.length; cut++)
      expect(code(() => parseCsr(der.subarray(0, cut)))).toBeDefined();
    for (let i = 0; i < der.length; i++) {
      for (const value of [0x00, 0x7f, 0x80, 0xff]) {
        const corrupted = Buffer.from(der);
        if (corrupted[i] === value) continue;
        corrupted[i] = value;
        // Either a typed error or (for bytes that do not matter to DER, e.g. inside a string) a parse.
        expect(() => code(() => parseCsr(corrupted))).not.toThrow();
      }
    }
  });
});

describe(parseCsrAsync.name, () => {
  async function asyncOutcome(input: Buffer | string): Promise<string> {
    try {
      const csr = await parseCsrAsync(input);
      return `ok ${csr.subject.text}`;
    } catch (error) {
      if (error instanceof PkiError) return `${error.code}: ${error.message}`;
      throw error;
    }
  }
  function syncOutcome(input: Buffer | string): string {
    try {
      return `ok ${parseCsr(input).subject.text}`;
    } catch (error) {
      if (error instanceof PkiError) return `${error.code}: ${error.message}`;
      throw error;
    }
  }

  it.each(['P-256', 'P-384', 'RSA-2048', 'Ed25519'] as const)(
    'returns what parseCsr returns for an openssl %s CSR',
    async (key) => {
      const { csrPem } = ws.csr(`async-${key}`, [...KEY_ARGS[key]], '/O=Example/CN=async.example.test', [
        '-addext',
        'subjectAltName=DNS:async.example.test,IP:192.0.2.7',
      ]);
      const fast = await parseCsrAsync(csrPem);
      expect(fast).toEqual(parseCsr(csrPem));
      expect(fast.subjectAltNames).toHaveLength(2);
    },
  );

  it('refuses a P-256 point that is not on the curve with key_invalid, as parseCsr does', async () => {
    const { csrPem } = ws.csr('offcurve', [...KEY_ARGS['P-256']], '/CN=offcurve.example.test');
    const der = Buffer.from(derOf(csrPem));
    const point = parseCsr(der).publicKey.subjectPublicKey;
    const at = der.indexOf(point);
    der[at + point.length - 1] ^= 0x01;
    const outcome = await asyncOutcome(der);
    expect(outcome).toMatch(/^key_invalid: ECDSA-P-256 public key does not load/);
    expect(syncOutcome(der)).toMatch(/^key_invalid: ECDSA-P-256 public key does not load/);
  });

  it('gives the same outcome and error as parseCsr for every truncation and byte corruption', async () => {
    const { csrPem } = ws.csr('async-fuzz', [...KEY_ARGS['P-256']], '/CN=fuzz.example.test', [
      '-addext',
      'subjectAltName=DNS:fuzz.example.test',
    ]);
    const der = derOf(csrPem);
    for (let cut = 0; cut < der.length; cut++) {
      const truncated = der.subarray(0, cut);
      expect(await asyncOutcome(truncated)).toBe(syncOutcome(truncated));
    }
    for (let i = 0; i < der.length; i++) {
      for (const value of [0x00, 0x80, 0xff]) {
        if (der[i] === value) continue;
        const corrupted = Buffer.from(der);
        corrupted[i] = value;
        expect(await asyncOutcome(corrupted)).toBe(syncOutcome(corrupted));
      }
    }
  });
});

describe(createCsr.name, () => {
  const provider = new SoftwareKeyProvider();

  it.each([
    [{ algorithm: 'ECDSA', curve: 'P-256' }],
    [{ algorithm: 'RSA', size: 2048 }],
    [{ algorithm: 'Ed25519' }],
  ] as const)('makes a %j CSR that openssl verifies and parseCsr reads back', async (spec) => {
    const { signer } = await provider.generate(spec);
    const { pem } = await createCsr({
      subject: [
        ['O', 'Certlane'],
        ['CN', 'Sub CA'],
      ],
      signer,
      ca: { pathLength: 0 },
      keyUsage: ['keyCertSign', 'cRLSign'],
      subjectAltNames: [{ type: 'dns', value: 'sub-ca.example.test' }],
    });
    ws.write('created.csr', pem);
    const verify = ws.run(['req', '-in', 'created.csr', '-noout', '-verify', '-text']);
    expect(verify.output).toMatch(/verify OK|Certificate request self-signature verify OK/);
    expect(verify.stdout).toMatch(/X509v3 Basic Constraints: critical\s+CA:TRUE, pathlen:0/);
    const csr = parseCsr(pem);
    expect(csr.subject.text).toBe('CN=Sub CA,O=Certlane');
    expect(csr.requested.basicConstraints).toEqual({ ca: true, pathLength: 0, critical: true });
    expect(csr.subjectAltNames).toEqual([{ type: 'dns', value: 'sub-ca.example.test' }]);
  });
});
