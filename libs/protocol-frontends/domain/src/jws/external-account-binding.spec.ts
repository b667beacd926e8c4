import { randomBytes } from 'node:crypto';
import { exportJWK, FlattenedSign, generateKeyPair, JWK } from 'jose';
import { AcmeProblem } from '../problems/acme-problem';
import { checkExternalAccountBinding } from './external-account-binding';

const URL_ = 'https://ca.test/acme/new-account';
const KID = 'eab-key-0123456789';
const HMAC = randomBytes(32);

async function binding(
  payload: unknown,
  header: Record<string, unknown> = {},
  key: Uint8Array = HMAC,
): Promise<Record<string, string>> {
  const jws = await new FlattenedSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'HS256', kid: KID, url: URL_, ...header } as never)
    .sign(key);
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

describe('checkExternalAccountBinding (RFC 8555 7.3.4)', () => {
  let accountJwk: JWK;
  let otherJwk: JWK;
  const lookup = async (kid: string) => (kid === KID ? HMAC : null);
  const check = (value: unknown) => checkExternalAccountBinding(value, { url: URL_, accountJwk }, lookup);

  beforeAll(async () => {
    accountJwk = await exportJWK((await generateKeyPair('ES256')).publicKey);
    otherJwk = await exportJWK((await generateKeyPair('ES256')).publicKey);
  });

  it('accepts a binding MACed with the key, naming the url and carrying the account key', async () => {
    await expect(check(await binding(accountJwk))).resolves.toEqual({ keyId: KID });
  });

  it.each(['HS384', 'HS512'])('accepts %s', async (alg) => {
    await expect(check(await binding(accountJwk, { alg }))).resolves.toEqual({ keyId: KID });
  });

  it('7.3.4 step 1: a binding that is not a flattened JWS is malformed', async () => {
    expect((await problemOf(check('a string'))).type).toBe('malformed');
  });

  it('7.3.4 step 2: "alg" MUST indicate a MAC-based algorithm', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const jws = await new FlattenedSign(new TextEncoder().encode(JSON.stringify(accountJwk)))
      .setProtectedHeader({ alg: 'ES256', kid: KID, url: URL_ })
      .sign(privateKey);
    expect((await problemOf(check(jws))).type).toBe('malformed');
  });

  it('7.3.4 step 2: the header MUST NOT contain a nonce', async () => {
    expect((await problemOf(check(await binding(accountJwk, { nonce: 'abc' })))).type).toBe('malformed');
  });

  it('7.3.4 step 2: "url" MUST equal the url of the outer JWS', async () => {
    const problem = await problemOf(
      check(await binding(accountJwk, { url: 'https://ca.test/acme/new-order' })),
    );
    expect(problem.type).toBe('malformed');
  });

  it('7.3.4 step 2: "kid" MUST be a key identifier the CA gave', async () => {
    expect((await problemOf(check(await binding(accountJwk, { kid: 42 })))).type).toBe('malformed');
    expect((await problemOf(check(await binding(accountJwk, { kid: 'unknown-key-id' })))).type).toBe(
      'unauthorized',
    );
  });

  it('7.3.4 step 4: a MAC made with another key is refused', async () => {
    const problem = await problemOf(check(await binding(accountJwk, {}, randomBytes(32))));
    expect(problem.type).toBe('unauthorized');
  });

  it('7.3.4 step 5: the payload MUST be the jwk of the outer JWS', async () => {
    expect((await problemOf(check(await binding(otherJwk)))).type).toBe('malformed');
    expect((await problemOf(check(await binding(['not', 'a', 'jwk'])))).type).toBe('malformed');
  });
});
