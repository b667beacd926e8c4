import { generateKeyPairSync, KeyObject, sign, verify } from 'node:crypto';
import { spkiKeyObject } from './public-key';

const spkiOf = (key: KeyObject): Buffer => key.export({ format: 'der', type: 'spki' });

describe('spkiKeyObject', () => {
  const pairs: [string, { publicKey: KeyObject; privateKey: KeyObject }][] = [
    ['RSA-2048', generateKeyPairSync('rsa', { modulusLength: 2048 })],
    ['EC P-256', generateKeyPairSync('ec', { namedCurve: 'P-256' })],
    ['EC P-384', generateKeyPairSync('ec', { namedCurve: 'P-384' })],
    ['Ed25519', generateKeyPairSync('ed25519')],
    // Not described by the DER reader: decoded by node.
    ['EC P-521', generateKeyPairSync('ec', { namedCurve: 'P-521' })],
  ];

  it.each(pairs)('loads the same %s key node decodes from the DER', (_name, { publicKey, privateKey }) => {
    const loaded = spkiKeyObject(spkiOf(publicKey));
    expect(loaded.equals(publicKey)).toBe(true);
    const hash = publicKey.asymmetricKeyType === 'ed25519' ? null : 'sha256';
    const signature = sign(hash, Buffer.from('data'), privateKey);
    expect(verify(hash, Buffer.from('data'), loaded, signature)).toBe(true);
    expect(verify(hash, Buffer.from('other'), loaded, signature)).toBe(false);
  });

  it('refuses an EC point that is not on its curve', () => {
    const der = Buffer.from(spkiOf(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey));
    der[der.length - 1] ^= 0x01;
    expect(() => spkiKeyObject(der)).toThrow();
  });

  it('refuses bytes that are not an SPKI', () => {
    expect(() => spkiKeyObject(Buffer.from('30030201', 'hex'))).toThrow();
  });
});
