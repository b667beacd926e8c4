import { exportJWK, FlattenedSign, generateKeyPair, JWK, KeyLike } from 'jose';
import { AcmeProblem } from '../problems/acme-problem';
import { jwkThumbprint } from './acme-jws';
import { checkKeyChange } from './key-change';

const URL_ = 'https://ca.test/acme/key-change';
const ACCOUNT = 'https://ca.test/acme/account/acc1';

interface Key {
  privateKey: KeyLike;
  jwk: JWK;
}
const key = async (): Promise<Key> => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: await exportJWK(publicKey) };
};

async function inner(signer: Key, payload: unknown, header: Record<string, unknown> = {}) {
  const jws = await new FlattenedSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ES256', jwk: signer.jwk, url: URL_, ...header } as never)
    .sign(signer.privateKey);
  return { protected: jws.protected!, payload: jws.payload, signature: jws.signature };
}

async function problemOf(promise: Promise<unknown>): Promise<AcmeProblem> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AcmeProblem) return error;
    throw error;
  }
  throw new Error('no problem was thrown');
}

describe('checkKeyChange (RFC 8555 7.3.5)', () => {
  let oldKey: Key;
  let newKey: Key;
  const outer = () => ({ url: URL_, accountUrl: ACCOUNT, accountJwk: oldKey.jwk });

  beforeAll(async () => {
    oldKey = await key();
    newKey = await key();
  });

  it('accepts an inner JWS signed by the new key naming the account and its old key', async () => {
    const result = await checkKeyChange(
      await inner(newKey, { account: ACCOUNT, oldKey: oldKey.jwk }),
      outer(),
    );
    expect(result.newJwk).toEqual(newKey.jwk);
    expect(result.newThumbprint).toBe(await jwkThumbprint(newKey.jwk));
  });

  it('RFC 8555 7.3.5: an inner JWS not signed by the key in its jwk is refused', async () => {
    const other = await key();
    const body = await inner(other, { account: ACCOUNT, oldKey: oldKey.jwk }, { jwk: newKey.jwk });
    expect((await problemOf(checkKeyChange(body, outer()))).type).toBe('malformed');
  });

  it('RFC 8555 7.3.5: inner and outer url must be the same', async () => {
    const body = await inner(
      newKey,
      { account: ACCOUNT, oldKey: oldKey.jwk },
      { url: 'https://ca.test/acme/new-order' },
    );
    expect((await problemOf(checkKeyChange(body, outer()))).detail).toContain('same url');
  });

  it('RFC 8555 7.3.5: the account field must name the signing account', async () => {
    const body = await inner(newKey, { account: 'https://ca.test/acme/account/other', oldKey: oldKey.jwk });
    expect((await problemOf(checkKeyChange(body, outer()))).detail).toContain('account');
  });

  it("RFC 8555 7.3.5: oldKey must be the account's current key", async () => {
    const body = await inner(newKey, { account: ACCOUNT, oldKey: newKey.jwk });
    expect((await problemOf(checkKeyChange(body, outer()))).detail).toContain('oldKey');
  });

  it('RFC 8555 7.3.5: the inner JWS must carry a jwk, not a kid', async () => {
    const body = await inner(
      newKey,
      { account: ACCOUNT, oldKey: oldKey.jwk },
      { jwk: undefined, kid: ACCOUNT },
    );
    expect((await problemOf(checkKeyChange(body, outer()))).type).toBe('malformed');
  });

  it('RFC 8555 7.3.5: the inner JWS must not carry a nonce', async () => {
    const body = await inner(newKey, { account: ACCOUNT, oldKey: oldKey.jwk }, { nonce: 'abc' });
    expect((await problemOf(checkKeyChange(body, outer()))).detail).toContain('nonce');
  });

  it('refuses a rollover to the same key, and an empty inner payload', async () => {
    expect(
      (
        await problemOf(
          checkKeyChange(await inner(oldKey, { account: ACCOUNT, oldKey: oldKey.jwk }), outer()),
        )
      ).detail,
    ).toContain('already has');
    const empty = await new FlattenedSign(new Uint8Array())
      .setProtectedHeader({ alg: 'ES256', jwk: newKey.jwk, url: URL_ } as never)
      .sign(newKey.privateKey);
    expect((await problemOf(checkKeyChange(empty, outer()))).type).toBe('malformed');
  });
});
