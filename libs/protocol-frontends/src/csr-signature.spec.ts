import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signatureFitsKey } from './csr-signature';
import { bytesOf, children, readNode } from './der-reader';
import { EstCsr } from './est/est-csr';
import { parseCsr } from './scep/csr';
import { algorithm, sequence, tlv } from './scep/der';

const SHA256_WITH_RSA = '1.2.840.113549.1.1.11';
const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';

describe(signatureFitsKey.name, () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
  const ed = generateKeyPairSync('ed25519').publicKey;

  it('matches each signature family to its key type', () => {
    expect([signatureFitsKey(SHA256_WITH_RSA, rsa), signatureFitsKey(SHA256_WITH_RSA, ec)]).toEqual([
      true,
      false,
    ]);
    expect([signatureFitsKey(ECDSA_WITH_SHA256, ec), signatureFitsKey(ECDSA_WITH_SHA256, rsa)]).toEqual([
      true,
      false,
    ]);
    expect([signatureFitsKey('1.3.101.112', ed), signatureFitsKey('1.3.101.112', rsa)]).toEqual([
      true,
      false,
    ]);
    expect(signatureFitsKey('1.2.3.4', rsa)).toBe(false);
  });
});

describe('RFC 2986 4.2: a CSR whose signature algorithm its key cannot make does not verify (EST and SCEP readers)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'csr-signature-'));
  const keyPath = join(dir, 'k.pem');
  execFileSync('openssl', [
    'genpkey',
    '-algorithm',
    'RSA',
    '-pkeyopt',
    'rsa_keygen_bits:2048',
    '-out',
    keyPath,
  ]);
  const key = createPrivateKey(readFileSync(keyPath));
  const der = execFileSync('openssl', [
    'req',
    '-new',
    '-key',
    keyPath,
    '-subj',
    '/CN=device.example.test',
    '-outform',
    'DER',
  ]);
  /** The request's CertificationRequestInfo signed by the RSA key with SHA-256, under `oid`. */
  const signedAs = (oid: string): Buffer => {
    const info = Buffer.from(bytesOf(der, children(der, readNode(der, 0))[0]));
    const signature = sign('sha256', info, key);
    return sequence(info, algorithm(oid, null), tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  };

  it('verifies under sha256WithRSAEncryption', async () => {
    const honest = signedAs(SHA256_WITH_RSA);
    expect(parseCsr(honest).signatureValid).toBe(true);
    expect(await EstCsr.parse(honest).signatureValid()).toBe(true);
    expect(createPublicKey(key).asymmetricKeyType).toBe('rsa');
  });

  it('does not verify the same RSA signature under ecdsa-with-SHA256', async () => {
    const mislabelled = signedAs(ECDSA_WITH_SHA256);
    expect(parseCsr(mislabelled).signatureValid).toBe(false);
    expect(await EstCsr.parse(mislabelled).signatureValid()).toBe(false);
  });
});
