import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { readCertificateFile } from './certificate-files';

const run = (command: string, args: string[]) => execFileSync(command, args, { stdio: 'pipe' });

const { asn1 } = forge;
const der = (node: forge.asn1.Asn1) => asn1.toDer(node).getBytes();
const contentInfo = (oid: string, content: forge.asn1.Asn1) =>
  asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(oid).getBytes()),
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [content]),
  ]);

/** A version-3 PFX whose one ContentInfo is `info` (no MAC: the reader does not check it). */
const pfxOf = (info: forge.asn1.Asn1) => {
  const authSafe = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [info]);
  const pfx = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, asn1.integerToDer(3).getBytes()),
    contentInfo(
      forge.pki.oids.data,
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, der(authSafe)),
    ),
  ]);
  return Buffer.from(der(pfx), 'binary');
};

/**
 * An EncryptedData whose content, opened with `password`, is `plaintext`: what a wrong password
 * looks like when its decryption happens to end in valid padding and parse as DER.
 */
const encryptedDataOf = (plaintext: forge.asn1.Asn1, password: string) => {
  const sealed = forge.pki.encryptPrivateKeyInfo(plaintext, password, { algorithm: 'aes256' });
  const [algorithm, octets] = sealed.value as forge.asn1.Asn1[];
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, asn1.integerToDer(0).getBytes()),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(forge.pki.oids.data).getBytes()),
      algorithm,
      asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, false, octets.value as string),
    ]),
  ]);
};

/**
 * Certificate files written by the real tools (openssl, keytool), read without any private key
 * being decrypted or decoded (ADR 0063).
 */
describe('readCertificateFile', () => {
  let dir: string;
  let leaf: X509Certificate;
  let ca: X509Certificate;
  const file = (name: string) => readFileSync(join(dir, name));
  const fingerprints = (ders: Buffer[]) => ders.map((der) => new X509Certificate(der).fingerprint256);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'certfiles-'));
    const at = (name: string) => join(dir, name);
    run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      at('ca.key'),
      '-out',
      at('ca.pem'),
      '-subj',
      '/CN=Files CA',
      '-days',
      '30',
    ]);
    run('openssl', [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      at('leaf.key'),
      '-out',
      at('leaf.csr'),
      '-subj',
      '/CN=files.test',
    ]);
    run('openssl', [
      'x509',
      '-req',
      '-in',
      at('leaf.csr'),
      '-CA',
      at('ca.pem'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-out',
      at('leaf.pem'),
      '-days',
      '10',
    ]);
    leaf = new X509Certificate(file('leaf.pem'));
    ca = new X509Certificate(file('ca.pem'));
    const p12 = (name: string, extra: string[], password: string) =>
      run('openssl', [
        'pkcs12',
        '-export',
        '-inkey',
        at('leaf.key'),
        '-in',
        at('leaf.pem'),
        '-certfile',
        at('ca.pem'),
        '-out',
        at(name),
        '-passout',
        `pass:${password}`,
        ...extra,
      ]);
    p12('aes.p12', [], 's3cret'); // OpenSSL 3 default: PBES2/AES-256 for certificates and key
    p12('legacy.p12', ['-legacy'], 's3cret'); // RC2-40 certificates, 3DES key
    p12('plain-certs.p12', ['-certpbe', 'NONE'], 'unlisted');
    run('openssl', ['x509', '-in', at('leaf.pem'), '-outform', 'DER', '-out', at('leaf.der')]);
    writeFileSync(at('combined.pem'), Buffer.concat([file('leaf.key'), file('leaf.pem'), file('ca.pem')]));
    run('keytool', [
      '-importkeystore',
      '-srckeystore',
      at('aes.p12'),
      '-srcstoretype',
      'PKCS12',
      '-srcstorepass',
      's3cret',
      '-destkeystore',
      at('store.jks'),
      '-deststoretype',
      'JKS',
      '-deststorepass',
      'changeit',
      '-noprompt',
    ]);
    run('keytool', [
      '-importcert',
      '-noprompt',
      '-alias',
      'trusted-ca',
      '-file',
      at('ca.pem'),
      '-keystore',
      at('store.jks'),
      '-storepass',
      'changeit',
    ]);
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads every CERTIFICATE block of a PEM file and never a key block', () => {
    expect(readCertificateFile(file('combined.pem'), [])).toEqual({
      format: 'pem',
      certificates: [leaf.raw, ca.raw],
    });
    expect(readCertificateFile(file('leaf.key'), [])).toBeNull();
  });

  it('reads a DER certificate', () => {
    expect(readCertificateFile(file('leaf.der'), [])).toEqual({ format: 'der', certificates: [leaf.raw] });
  });

  it('reads a PKCS#12 file whose certificates are encrypted (AES and legacy RC2) with a listed password', () => {
    for (const name of ['aes.p12', 'legacy.p12']) {
      const read = readCertificateFile(file(name), ['wrong', 's3cret'])!;
      expect(read.format).toBe('pkcs12');
      expect(fingerprints(read.certificates).sort()).toEqual([leaf.fingerprint256, ca.fingerprint256].sort());
      expect(read.locked).toBeUndefined();
    }
  });

  it('reads the unencrypted certificates of a PKCS#12 file without any password', () => {
    const read = readCertificateFile(file('plain-certs.p12'), [])!;
    expect(fingerprints(read.certificates).sort()).toEqual([leaf.fingerprint256, ca.fingerprint256].sort());
  });

  it('reports a PKCS#12 file whose certificates no listed password opens as locked, with nothing read', () => {
    expect(readCertificateFile(file('aes.p12'), ['wrong'])).toEqual({
      format: 'pkcs12',
      certificates: [],
      locked: 'no configured password opens the certificates of this PKCS#12 file',
    });
  });

  it('treats a decryption that parses as DER but is no SafeContents as a wrong password, not a crash', () => {
    const integer = asn1.create(
      asn1.Class.UNIVERSAL,
      asn1.Type.INTEGER,
      false,
      asn1.integerToDer(5).getBytes(),
    );
    const bytes = pfxOf(contentInfo(forge.pki.oids.encryptedData, encryptedDataOf(integer, 'wrong')));
    expect(readCertificateFile(bytes, ['wrong'])).toEqual({
      format: 'pkcs12',
      certificates: [],
      locked: 'no configured password opens the certificates of this PKCS#12 file',
    });
  });

  it('reports a PKCS#12 file whose inner structure is damaged as unreadable instead of throwing', () => {
    const notDer = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, '\x30\x05\x02');
    expect(readCertificateFile(pfxOf(contentInfo(forge.pki.oids.data, notDer)), [])).toEqual({
      format: 'pkcs12',
      certificates: [],
      locked: 'the PKCS#12 structure could not be read',
    });
  });

  it('reads a JKS keystore: the key entry chain and the trusted entry, without the store password', () => {
    const read = readCertificateFile(file('store.jks'), [])!;
    expect(read.format).toBe('jks');
    expect(fingerprints(read.certificates).sort()).toEqual(
      [leaf.fingerprint256, ca.fingerprint256, ca.fingerprint256].sort(),
    );
  });

  it('ignores files that hold no certificate', () => {
    expect(readCertificateFile(Buffer.from('just text'), [])).toBeNull();
    expect(readCertificateFile(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x05]), [])).toBeNull();
  });
});
