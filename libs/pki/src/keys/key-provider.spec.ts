import { generateKeyPairSync, verify } from 'node:crypto';
import { PkiError } from '../errors';
import { KeySpec, SoftwareKeyProvider, SoftwareSigner } from './key-provider';
import { assertSupportedKey, parseSpki, publicKeyObject } from './public-key';
import { Tag } from '../der/tags';
import { NULL, bitString, oid, sequence, smallInteger, tlv, unsignedInteger } from '../der/writer';
import { Oid } from '../oids';

const provider = new SoftwareKeyProvider();

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PkiError) return error.code;
    throw error;
  }
  return undefined;
}

describe(SoftwareKeyProvider.name, () => {
  it.each([
    [{ algorithm: 'RSA', size: 2048 }, 'RSA-2048', 'sha256WithRSAEncryption'],
    [{ algorithm: 'RSA', size: 3072 }, 'RSA-3072', 'sha256WithRSAEncryption'],
    [{ algorithm: 'ECDSA', curve: 'P-256' }, 'ECDSA-P-256', 'ecdsa-with-SHA256'],
    [{ algorithm: 'ECDSA', curve: 'P-384' }, 'ECDSA-P-384', 'ecdsa-with-SHA384'],
    [{ algorithm: 'Ed25519' }, 'Ed25519', 'Ed25519'],
  ] as const)(
    'generates %j keys that sign and reload from their handle',
    async (spec, description, algorithm) => {
      const { handle, signer } = await provider.generate(spec);
      expect(signer.publicKey.description).toBe(description);
      expect(signer.signatureAlgorithm.name).toBe(algorithm);
      const data = Buffer.from('to be signed');
      const signature = await signer.sign(data);
      expect(verify(signer.signatureAlgorithm.hash, data, publicKeyObject(signer.publicKey), signature)).toBe(
        true,
      );
      const reloaded = await provider.load(handle);
      expect(reloaded.publicKey.spki).toEqual(signer.publicKey.spki);
      expect(
        verify(
          signer.signatureAlgorithm.hash,
          data,
          publicKeyObject(signer.publicKey),
          await reloaded.sign(data),
        ),
      ).toBe(true);
    },
  );

  it.each([
    [{ algorithm: 'RSA', size: 1024 }, 'key_size_unsupported'],
    [{ algorithm: 'ECDSA', curve: 'P-521' }, 'curve_unsupported'],
    [{ algorithm: 'DSA' }, 'key_algorithm_unsupported'],
  ])('refuses to generate %j (%s)', async (spec, expected) => {
    expect(await code(provider.generate(spec as unknown as KeySpec))).toBe(expected);
  });

  it('refuses handles of another provider and private keys that do not load', async () => {
    expect(await code(provider.load({ provider: 'pkcs11', reference: 'pkcs11:token=ca;object=root' }))).toBe(
      'key_invalid',
    );
    expect(
      await code(provider.load({ provider: 'software', reference: Buffer.from('3003020101', 'hex') })),
    ).toBe('key_invalid');
  });

  it('refuses a software signer over a weak or unsupported key', () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    expect(() => new SoftwareSigner(weak)).toThrow(expect.objectContaining({ code: 'key_too_weak' }));
    const p521 = generateKeyPairSync('ec', { namedCurve: 'P-521' }).privateKey;
    expect(() => new SoftwareSigner(p521)).toThrow(expect.objectContaining({ code: 'curve_unsupported' }));
    const publicOnly = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    expect(() => new SoftwareSigner(publicOnly)).toThrow(expect.objectContaining({ code: 'key_invalid' }));
  });
});

describe(parseSpki.name, () => {
  it('describes RSA, EC and Ed25519 keys like node:crypto does', () => {
    for (const [type, options, description] of [
      ['rsa', { modulusLength: 2048 }, 'RSA-2048'],
      ['ec', { namedCurve: 'P-384' }, 'ECDSA-P-384'],
      ['ed25519', {}, 'Ed25519'],
    ] as const) {
      const { publicKey } = generateKeyPairSync(type as 'ec', options as { namedCurve: string });
      const info = parseSpki(publicKey.export({ type: 'spki', format: 'der' }));
      expect(info.description).toBe(description);
      // The JWK fast path gives the same key back.
      expect(publicKeyObject(info).export({ type: 'spki', format: 'der' })).toEqual(info.spki);
    }
  });

  it('refuses a malformed EC point, a negative RSA modulus and an EC key without a named curve', () => {
    const ecKey = (point: Buffer) =>
      sequence(sequence(oid(Oid.ecPublicKey), oid(Oid.secp256r1)), bitString(point));
    expect(() => parseSpki(ecKey(Buffer.alloc(64, 4)))).toThrow(
      expect.objectContaining({ code: 'key_invalid' }),
    );
    expect(() => parseSpki(ecKey(Buffer.concat([Buffer.of(5), Buffer.alloc(64, 1)])))).toThrow(
      expect.objectContaining({ code: 'key_invalid' }),
    );
    const rsa = sequence(
      sequence(oid(Oid.rsaEncryption), NULL),
      bitString(sequence(tlv(Tag.Integer, Buffer.alloc(256, 0x80)), smallInteger(65537))),
    );
    expect(() => parseSpki(rsa)).toThrow(expect.objectContaining({ code: 'key_invalid' }));
    const explicitCurve = sequence(
      sequence(oid(Oid.ecPublicKey), sequence(smallInteger(1))),
      bitString(Buffer.alloc(65, 4)),
    );
    expect(() => parseSpki(explicitCurve)).toThrow(expect.objectContaining({ code: 'curve_unsupported' }));
  });

  it('describes an even RSA exponent and then refuses it as key_invalid', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = publicKey.export({ format: 'jwk' });
    const modulus = Buffer.from(jwk.n as string, 'base64url');
    const spki = sequence(
      sequence(oid(Oid.rsaEncryption), NULL),
      bitString(sequence(unsignedInteger(modulus), smallInteger(65536))),
    );
    const info = parseSpki(spki);
    expect(info.description).toBe('RSA-2048');
    expect(() => assertSupportedKey(info)).toThrow(expect.objectContaining({ code: 'key_invalid' }));
  });
});
