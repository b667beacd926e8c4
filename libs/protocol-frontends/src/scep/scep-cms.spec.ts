import { constants, generateKeyPairSync, privateDecrypt, publicEncrypt } from 'node:crypto';
import { pkcs1v15Unwrap } from './scep-cms';

describe('RSAES-PKCS1-v1_5 unwrap without a padding oracle', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const raw = (block: Buffer) =>
    privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, block);

  it('returns the content key of a well-formed block', () => {
    const key = Buffer.alloc(32, 7);
    const block = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, key);
    expect(pkcs1v15Unwrap(raw(block), 32)).toEqual(key);
  });

  it('returns a random key of the expected length for a key of another length or a malformed block', () => {
    const short = publicEncrypt(
      { key: publicKey, padding: constants.RSA_PKCS1_PADDING },
      Buffer.alloc(16, 7),
    );
    const first = pkcs1v15Unwrap(raw(short), 32);
    expect(first.length).toBe(32);
    expect(first).not.toEqual(Buffer.alloc(32, 7));
    const garbage = Buffer.alloc(256, 0x41);
    expect(pkcs1v15Unwrap(garbage, 24).length).toBe(24);
  });
});
