import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { EstCsr, issuedCertificateFacts } from './est-csr';

const dir = mkdtempSync(join(tmpdir(), 'est-csr-'));
function csr(key: string[], subject: string, attrs: string, extensions = '', sign: string[] = []): Buffer {
  writeFileSync(
    join(dir, 'req.cnf'),
    `[req]\ndistinguished_name=dn\nattributes=a\nprompt=no\n${extensions ? 'req_extensions=e\n' : ''}[dn]\n${subject}\n[a]\n${attrs}\n${extensions ? `[e]\n${extensions}\n` : ''}`,
  );
  return execFileSync(
    'openssl',
    [
      'req',
      '-new',
      ...key,
      ...sign,
      '-nodes',
      '-keyout',
      join(dir, 'k.pem'),
      '-config',
      join(dir, 'req.cnf'),
      '-outform',
      'DER',
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
}
const P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
const RSA = ['-newkey', 'rsa:2048'];

/** Both readings of one request: what the DER reader answers must be what @peculiar/x509 answers. */
async function bothReadings(der: Buffer) {
  const direct = EstCsr.parse(der);
  const peculiar = EstCsr.parse(der, { direct: false });
  expect(peculiar.readDirectly).toBe(false);
  expect(direct.facts()).toEqual(peculiar.facts());
  expect(direct.challengePassword()).toEqual(peculiar.challengePassword());
  expect(await direct.signatureValid()).toBe(await peculiar.signatureValid());
  return direct;
}

describe('EST CSR reading (RFC 2986, RFC 7030 4.2)', () => {
  it('reads an ECDSA request with names, EKUs and attributes directly, as @peculiar/x509 reads it', async () => {
    const der = csr(
      P256,
      'CN=device.example.test\nO=Example\nserialNumber=1234\nemailAddress=ops@example.test',
      'challengePassword=secret-challenge-1',
      'subjectAltName=DNS:a.example.test,DNS:b.example.test,email:x@example.test,URI:https://example.test/x\nextendedKeyUsage=clientAuth,serverAuth',
    );
    const read = await bothReadings(der);
    expect(read.readDirectly).toBe(true);
    expect(await read.signatureValid()).toBe(true);
    expect(read.challengePassword()).toBe('secret-challenge-1');
    expect(read.facts()).toMatchObject({
      keyName: 'ECDSA-P256',
      commonName: 'device.example.test',
      sans: [
        { type: 'dns', value: 'a.example.test' },
        { type: 'dns', value: 'b.example.test' },
        { type: 'email', value: 'x@example.test' },
        { type: 'url', value: 'https://example.test/x' },
      ],
      ekus: ['1.3.6.1.5.5.7.3.2', '1.3.6.1.5.5.7.3.1'],
    });
  });

  it('reads RSA and Ed25519 requests without extensions directly', async () => {
    for (const key of [RSA, ['-newkey', 'ed25519']]) {
      const read = await bothReadings(csr(key, 'CN=plain.example.test', 'unstructuredName=x'));
      expect(read.readDirectly).toBe(true);
      expect(await read.signatureValid()).toBe(true);
    }
  });

  it('leaves IP SANs and RSA-PSS signatures to @peculiar/x509, with the same answers', async () => {
    const ip = await bothReadings(
      csr(P256, 'CN=ip.example.test', 'unstructuredName=x', 'subjectAltName=DNS:a.example.test,IP:10.0.0.1'),
    );
    expect(ip.readDirectly).toBe(false);
    expect(ip.facts().sans).toEqual([
      { type: 'dns', value: 'a.example.test' },
      { type: 'ip', value: '10.0.0.1' },
    ]);
    const pss = await bothReadings(
      csr(RSA, 'CN=pss.example.test', 'unstructuredName=x', '', ['-sigopt', 'rsa_padding_mode:pss']),
    );
    expect(pss.readDirectly).toBe(false);
    expect(await pss.signatureValid()).toBe(true);
  });

  it('RFC 2986 4.2: a request whose signature does not verify is refused by both readings', async () => {
    const der = csr(P256, 'CN=tampered.example.test', 'unstructuredName=x');
    // The subject's last byte changes: the signature no longer covers the request.
    const at = der.indexOf(Buffer.from('tampered'));
    der[at] ^= 0x01;
    const read = await bothReadings(der);
    expect(read.readDirectly).toBe(true);
    expect(await read.signatureValid()).toBe(false);
  });

  it('throws on bytes that are not a request', () => {
    expect(() => EstCsr.parse(Buffer.from('not a certificate request'))).toThrow();
    expect(() => EstCsr.parse(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]))).toThrow();
  });

  it("reads an issued certificate's DER, serial and subject as Node's X509Certificate gives them", () => {
    const subjects = [
      '/CN=device.example.test',
      '/DC=test/DC=example/C=DE/ST=Berlin/L=Berlin/O=Example Org/OU=Devices (EST)/CN=dev-1.example.test/emailAddress=ops@example.test/serialNumber=A-12',
      '/CN=Doe\\, Jane/O=Example',
      '/CN=a+O=b',
      '/CN=gr\u00fc\u00dfe.example.test',
      '/CN= leading space',
    ];
    const serials = ['0x01', '0x0a', '0x80', '0x00ff00', '0x7fffffffffffffffffffffffffffffffffffffff'];
    subjects.forEach((subject, i) => {
      const pem = execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-keyout',
          join(dir, 'c.key'),
        ].concat(['-subj', subject, '-utf8', '-set_serial', serials[i % serials.length], '-days', '1']),
        { stdio: ['ignore', 'pipe', 'ignore'] },
      ).toString();
      const node = new X509Certificate(pem);
      expect(issuedCertificateFacts(pem)).toEqual({
        der: node.raw,
        serialHex: node.serialNumber.toLowerCase(),
        subject: node.subject.replace(/\n/g, ', '),
      });
    });
  });
});
