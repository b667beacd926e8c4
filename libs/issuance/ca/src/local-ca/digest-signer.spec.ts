import { createHash, generateKeyPairSync, KeyObject, verify } from 'node:crypto';
import { signDigest } from './digest-signer';

const data = Buffer.from('tbsCertList bytes, or anything else');
const der = (key: KeyObject) => key.export({ format: 'der', type: 'pkcs8' });

describe(signDigest.name, () => {
  it.each([
    ['ECDSA P-256', 'sha256', generateKeyPairSync('ec', { namedCurve: 'P-256' })],
    ['ECDSA P-384', 'sha384', generateKeyPairSync('ec', { namedCurve: 'P-384' })],
    ['RSA-2048 with sha256', 'sha256', generateKeyPairSync('rsa', { modulusLength: 2048 })],
    ['RSA-2048 with sha512', 'sha512', generateKeyPairSync('rsa', { modulusLength: 2048 })],
  ] as const)('%s: the signature verifies over the original data', (_name, hash, pair) => {
    const digest = createHash(hash).update(data).digest();
    const signature = signDigest(der(pair.privateKey), hash, digest);
    expect(verify(hash, data, pair.publicKey, signature)).toBe(true);
    expect(verify(hash, Buffer.from('other data'), pair.publicKey, signature)).toBe(false);
  });

  it('does not hash again: signing the digest of the digest does not verify over the data', () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const digest = createHash('sha256').update(data).digest();
    const signature = signDigest(
      der(pair.privateKey),
      'sha256',
      createHash('sha256').update(digest).digest(),
    );
    expect(verify('sha256', data, pair.publicKey, signature)).toBe(false);
    expect(verify('sha256', digest, pair.publicKey, signature)).toBe(true);
  });

  it('refuses a digest of the wrong length', () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() => signDigest(der(pair.privateKey), 'sha384', Buffer.alloc(32))).toThrow(
      'a sha384 digest is 48 bytes, got 32',
    );
  });

  it('refuses an Ed25519 key with not_implemented', () => {
    const pair = generateKeyPairSync('ed25519');
    expect(() => signDigest(der(pair.privateKey), 'sha256', Buffer.alloc(32))).toThrow(
      expect.objectContaining({ code: 'not_implemented' }),
    );
  });
});
