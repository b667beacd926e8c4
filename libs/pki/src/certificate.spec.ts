import { X509Certificate } from 'node:crypto';
import { parseCertificate, parseCertificates } from './certificate';
import { PkiError } from './errors';
import { PemLabel, decodeSingle } from './pem';
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

function opensslCert(name: string, args: string[]): string {
  ws.ok(['req', '-x509', ...args, '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`]);
  return ws.readText(`${name}.pem`);
}

describe(parseCertificate.name, () => {
  it('reads an openssl certificate the way node:crypto does', () => {
    const pem = opensslCert('self', [
      ...KEY_ARGS['P-256'],
      '-subj',
      '/C=US/O=Example Org/CN=self.example.test',
      '-days',
      '10',
      '-set_serial',
      '0x00ff00aa',
      '-addext',
      'subjectAltName=DNS:self.example.test,IP:::1',
    ]);
    const cert = parseCertificate(pem);
    const node = new X509Certificate(pem);
    expect(cert.version).toBe(3);
    expect(cert.serialNumber).toBe('ff00aa');
    expect(node.serialNumber.toLowerCase()).toBe('ff00aa');
    expect(cert.subject.text).toBe('CN=self.example.test,O=Example Org,C=US');
    expect(cert.selfIssued).toBe(true);
    expect(cert.notAfter.getTime()).toBe(new Date(node.validTo).getTime());
    expect(cert.fingerprintSha256).toBe(node.fingerprint256.replace(/:/g, '').toLowerCase());
    expect(cert.publicKey.description).toBe('ECDSA-P-256');
    expect(cert.decoded.subjectAltNames).toEqual([
      { type: 'dns', value: 'self.example.test' },
      { type: 'ip', value: '::1' },
    ]);
    expect(cert.decoded.basicConstraints?.ca).toBe(true);
  });

  it('keeps the leading 0 digit of a serial whose first octet is below 0x10 (as serialHex stores it)', () => {
    const pem = opensslCert('low-serial', [
      ...KEY_ARGS['P-256'],
      '-subj',
      '/CN=low',
      '-set_serial',
      '0x0a1b2c',
    ]);
    expect(parseCertificate(pem).serialNumber).toBe('0a1b2c');
    // Node prints the same octets; ACME's revokeCert once stripped that 0 and found nothing.
    expect(new X509Certificate(pem).serialNumber).toBe('0A1B2C');
  });

  it('reads a v1 certificate (no extensions)', () => {
    ws.ok([
      'req',
      '-new',
      ...KEY_ARGS['P-256'],
      '-nodes',
      '-keyout',
      'v1.key',
      '-subj',
      '/CN=v1',
      '-out',
      'v1.csr',
    ]);
    ws.ok(['x509', '-req', '-in', 'v1.csr', '-key', 'v1.key', '-days', '1', '-out', 'v1.pem']);
    const text = ws.ok(['x509', '-in', 'v1.pem', '-noout', '-text']).stdout;
    if (text.includes('Version: 1')) {
      const cert = parseCertificate(ws.readText('v1.pem'));
      expect(cert.version).toBe(1);
      expect(cert.extensions).toEqual([]);
    } else {
      // openssl 3.x may add extensions and make it v3; the parse must still work.
      expect(parseCertificate(ws.readText('v1.pem')).version).toBe(3);
    }
  });

  it('reads every certificate of a bundle with CRLF line ends', () => {
    const a = opensslCert('a', [...KEY_ARGS['P-256'], '-subj', '/CN=a']);
    const b = opensslCert('b', [...KEY_ARGS['P-256'], '-subj', '/CN=b']);
    const bundle = `${a}${b}`.replace(/\n/g, '\r\n');
    expect(parseCertificates(bundle).map((c) => c.subject.commonName)).toEqual(['a', 'b']);
  });

  it('reads a UTF-8 subject from an openssl certificate', () => {
    const pem = opensslCert('utf8', [...KEY_ARGS['P-256'], '-utf8', '-subj', '/CN=Zürich Ünïcode']);
    expect(parseCertificate(pem).subject.commonName).toBe('Zürich Ünïcode');
  });

  it.each([
    ['truncated', (der: Buffer) => der.subarray(0, der.length - 1), 'der_truncated'],
    ['with trailing bytes', (der: Buffer) => Buffer.concat([der, Buffer.of(0)]), 'der_invalid'],
    [
      'with differing inner and outer algorithms',
      (der: Buffer) => {
        const copy = Buffer.from(der);
        const ecdsaSha256 = Buffer.from('2a8648ce3d040302', 'hex');
        const at = copy.indexOf(ecdsaSha256);
        copy[at + ecdsaSha256.length - 1] = 0x03; // ecdsa-with-SHA384 inside TBS only
        return copy;
      },
      'der_invalid',
    ],
  ] as const)('refuses a certificate %s', (_label, mutate, expected) => {
    const pem = opensslCert('bad', [...KEY_ARGS['P-256'], '-subj', '/CN=bad']);
    const der = decodeSingle(pem, [PemLabel.certificate], { maxBytes: 65536, what: 'test' });
    expect(code(() => parseCertificate(mutate(der)))).toBe(expected);
  });

  it('fails every truncation with a PkiError', () => {
    const pem = opensslCert('fuzz', [
      ...KEY_ARGS['RSA-2048'],
      '-subj',
      '/CN=fuzz',
      '-addext',
      'subjectAltName=DNS:fuzz',
    ]);
    const der = decodeSingle(pem, [PemLabel.certificate], { maxBytes: 65536, what: 'test' });
    for (let cut = 0; cut < der.length; cut += 7)
      expect(code(() => parseCertificate(der.subarray(0, cut)))).toBeDefined();
    for (let i = 0; i < der.length; i += 3) {
      const corrupted = Buffer.from(der);
      corrupted[i] ^= 0xff;
      expect(() => code(() => parseCertificate(corrupted))).not.toThrow();
    }
  });
});
