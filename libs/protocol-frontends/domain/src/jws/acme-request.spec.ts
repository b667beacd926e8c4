import { generateKeyPairSync, sign as cryptoSign } from 'node:crypto';
import { exportJWK, FlattenedSign, generateKeyPair, JWK, KeyLike } from 'jose';
import { AcmeProblem } from '../problems/acme-problem';
import { ACME_JWS_ALGORITHMS, jwkThumbprint, parseAcmePayload } from './acme-jws';
import { AcmeKnownAccount, AcmeRequestPorts, authenticateAcmeRequest } from './acme-request';

const URL_ = 'https://ca.test/acme/new-order';
const KID = 'https://ca.test/acme/account/acc1';

interface Signer {
  alg: string;
  privateKey: KeyLike;
  jwk: JWK;
}

async function signer(alg: string, options: Record<string, unknown> = {}): Promise<Signer> {
  const { publicKey, privateKey } = await generateKeyPair(alg, options);
  return { alg, privateKey, jwk: await exportJWK(publicKey) };
}

async function sign(
  s: Signer,
  payload: unknown,
  header: Record<string, unknown>,
): Promise<{ protected: string; payload: string; signature: string }> {
  const bytes = payload === '' ? new Uint8Array() : new TextEncoder().encode(JSON.stringify(payload));
  const jws = await new FlattenedSign(bytes)
    .setProtectedHeader({ alg: s.alg, ...header } as never)
    .sign(s.privateKey);
  return { protected: jws.protected!, payload: jws.payload, signature: jws.signature };
}

/** An in-memory nonce store and account table: the ports the data-access layer implements. */
function ports(accounts: Record<string, AcmeKnownAccount> = {}): AcmeRequestPorts & { issued: Set<string> } {
  const issued = new Set(['n1', 'n2', 'n3']);
  return {
    issued,
    consumeNonce: async (nonce) => issued.delete(nonce),
    accountByKid: async (kid) => accounts[kid] ?? null,
  };
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

let es256: Signer;
beforeAll(async () => {
  es256 = await signer('ES256');
});

describe('authenticateAcmeRequest', () => {
  it.each(ACME_JWS_ALGORITHMS.map((a) => [a]))('accepts a jwk-signed request with %s', async (alg) => {
    const s = await signer(alg, alg === 'EdDSA' ? { crv: 'Ed25519' } : {});
    const body = await sign(s, { contact: [] }, { jwk: s.jwk, nonce: 'n1', url: URL_ });
    const result = await authenticateAcmeRequest(body, { url: URL_, key: 'jwk' }, ports());
    expect(result.payload).toEqual({ postAsGet: false, json: { contact: [] } });
    expect(result.account).toBeNull();
  });

  it('accepts a kid-signed POST-as-GET from a valid account', async () => {
    const p = ports({ [KID]: { id: 'acc1', jwk: es256.jwk, status: 'valid' } });
    const body = await sign(es256, '', { kid: KID, nonce: 'n1', url: URL_ });
    const result = await authenticateAcmeRequest(body, { url: URL_, key: 'kid' }, p);
    expect(result.payload).toEqual({ postAsGet: true });
    expect(result.account?.id).toBe('acc1');
  });

  it('RFC 8555 6.5: a request with a used nonce gets badNonce', async () => {
    const p = ports();
    await authenticateAcmeRequest(
      await sign(es256, {}, { jwk: es256.jwk, nonce: 'n1', url: URL_ }),
      { url: URL_, key: 'jwk' },
      p,
    );
    const again = await sign(es256, {}, { jwk: es256.jwk, nonce: 'n1', url: URL_ });
    const problem = await problemOf(authenticateAcmeRequest(again, { url: URL_, key: 'jwk' }, p));
    expect(problem.toDocument().type).toBe('urn:ietf:params:acme:error:badNonce');
  });

  it('RFC 8555 6.5: a request without a nonce gets badNonce', async () => {
    const body = await sign(es256, {}, { jwk: es256.jwk, url: URL_ });
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'jwk' }, ports()))).type).toBe(
      'badNonce',
    );
  });

  it('RFC 8555 6.4.1: a request whose url header differs from the request URL is unauthorized', async () => {
    const body = await sign(
      es256,
      {},
      { jwk: es256.jwk, nonce: 'n1', url: 'https://ca.test/acme/new-account' },
    );
    const p = ports();
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'jwk' }, p))).type).toBe(
      'unauthorized',
    );
    expect(p.issued.has('n1')).toBe(true);
  });

  it('RFC 8555 6.4: a request without a url header is malformed', async () => {
    const body = await sign(es256, {}, { jwk: es256.jwk, nonce: 'n1' });
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'jwk' }, ports()))).type).toBe(
      'malformed',
    );
  });

  it('RFC 8555 6.2: jwk where kid is required is malformed', async () => {
    const body = await sign(es256, {}, { jwk: es256.jwk, nonce: 'n1', url: URL_ });
    const problem = await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'kid' }, ports()));
    expect(problem.type).toBe('malformed');
    expect(problem.detail).toContain('kid');
  });

  it('RFC 8555 6.2: kid on newAccount (jwk required) is malformed', async () => {
    const body = await sign(es256, {}, { kid: KID, nonce: 'n1', url: URL_ });
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'jwk' }, ports()))).type).toBe(
      'malformed',
    );
  });

  it('RFC 8555 6.2: both jwk and kid is malformed', async () => {
    const body = await sign(es256, {}, { jwk: es256.jwk, kid: KID, nonce: 'n1', url: URL_ });
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'either' }, ports()))).type).toBe(
      'malformed',
    );
  });

  it('revokeCert accepts either key form', async () => {
    const p = ports({ [KID]: { id: 'acc1', jwk: es256.jwk, status: 'valid' } });
    const byKid = await sign(es256, {}, { kid: KID, nonce: 'n1', url: URL_ });
    const byJwk = await sign(es256, {}, { jwk: es256.jwk, nonce: 'n2', url: URL_ });
    await expect(authenticateAcmeRequest(byKid, { url: URL_, key: 'either' }, p)).resolves.toBeDefined();
    await expect(authenticateAcmeRequest(byJwk, { url: URL_, key: 'either' }, p)).resolves.toBeDefined();
  });

  it('RFC 8555 6.2: the none algorithm and MACs get badSignatureAlgorithm with the supported list', async () => {
    const header = Buffer.from(
      JSON.stringify({ alg: 'none', jwk: es256.jwk, nonce: 'n1', url: URL_ }),
    ).toString('base64url');
    const problem = await problemOf(
      authenticateAcmeRequest(
        { protected: header, payload: '', signature: '' },
        { url: URL_, key: 'jwk' },
        ports(),
      ),
    );
    expect(problem.type).toBe('badSignatureAlgorithm');
    expect(problem.toDocument().algorithms).toEqual([...ACME_JWS_ALGORITHMS]);
    const hs = Buffer.from(
      JSON.stringify({ alg: 'HS256', jwk: { kty: 'oct' }, nonce: 'n1', url: URL_ }),
    ).toString('base64url');
    expect(
      (
        await problemOf(
          authenticateAcmeRequest(
            { protected: hs, payload: '', signature: 'x' },
            { url: URL_, key: 'jwk' },
            ports(),
          ),
        )
      ).type,
    ).toBe('badSignatureAlgorithm');
  });

  it('RFC 8555 6.2: a JWS with an unprotected header is malformed', async () => {
    const body = {
      ...(await sign(es256, {}, { jwk: es256.jwk, nonce: 'n1', url: URL_ })),
      header: { kid: 'x' },
    };
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'jwk' }, ports()))).type).toBe(
      'malformed',
    );
  });

  it('RFC 8555 6.2: a JWS with several signatures (general serialization) is malformed', async () => {
    const flat = await sign(es256, {}, { jwk: es256.jwk, nonce: 'n1', url: URL_ });
    const general = {
      payload: flat.payload,
      signatures: [{ protected: flat.protected, signature: flat.signature }],
    };
    expect((await problemOf(authenticateAcmeRequest(general, { url: URL_, key: 'jwk' }, ports()))).type).toBe(
      'malformed',
    );
  });

  it('RFC 8555 6.2: a JWS using the unencoded payload option (RFC 7797 b64) is malformed', async () => {
    const unencoded = await sign(
      es256,
      {},
      { jwk: es256.jwk, nonce: 'n1', url: URL_, b64: false, crit: ['b64'] },
    );
    // RFC 7797 5: the payload travels as is; jose would verify it (b64 is a crit parameter it knows).
    unencoded.payload = '{}';
    const refused = await problemOf(authenticateAcmeRequest(unencoded, { url: URL_, key: 'jwk' }, ports()));
    expect(refused.type).toBe('malformed');
    expect(refused.message).toContain('b64');
  });

  it('a private key in the jwk header is badPublicKey', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = await exportJWK(privateKey);
    const body = await sign(es256, {}, { jwk: privateJwk, nonce: 'n1', url: URL_ });
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'jwk' }, ports()))).type).toBe(
      'badPublicKey',
    );
  });

  it('a signature by another key than the jwk is malformed', async () => {
    const other = await signer('ES256');
    const body = await sign(other, {}, { jwk: es256.jwk, nonce: 'n1', url: URL_ });
    expect(
      (await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'jwk' }, ports()))).detail,
    ).toContain('does not verify');
  });

  it('a tampered payload does not verify', async () => {
    const body = await sign(es256, { a: 1 }, { jwk: es256.jwk, nonce: 'n1', url: URL_ });
    body.payload = Buffer.from('{"a":2}').toString('base64url');
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'jwk' }, ports()))).type).toBe(
      'malformed',
    );
  });

  it('an alg that does not fit the key (RS256 header, EC key) is badPublicKey', async () => {
    const rsa = await signer('RS256');
    const body = await sign(rsa, {}, { jwk: es256.jwk, nonce: 'n1', url: URL_ });
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'jwk' }, ports()))).type).toBe(
      'badPublicKey',
    );
  });

  it('RFC 8555 6.7 badPublicKey: an RSA account key under 2048 bits is named as such, not as a bad signature', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const jwk = publicKey.export({ format: 'jwk' }) as JWK;
    // jose will not sign with it either: the JWS is made by hand.
    const protectedHeader = Buffer.from(
      JSON.stringify({ alg: 'RS256', jwk, nonce: 'n1', url: URL_ }),
    ).toString('base64url');
    const payload = Buffer.from('{}').toString('base64url');
    const signature = cryptoSign('sha256', Buffer.from(`${protectedHeader}.${payload}`), privateKey).toString(
      'base64url',
    );
    const refused = await problemOf(
      authenticateAcmeRequest(
        { protected: protectedHeader, payload, signature },
        { url: URL_, key: 'jwk' },
        ports(),
      ),
    );
    expect([refused.type, refused.detail]).toEqual([
      'badPublicKey',
      'an RSA account key must have 2048 to 8192 bits; this one has 1024',
    ]);
  });

  it('an ES512 header over a P-256 key is badPublicKey (RFC 7518 3.4: ES512 is P-521)', async () => {
    const p521 = await signer('ES512');
    const body = await sign(p521, {}, { jwk: es256.jwk, nonce: 'n1', url: URL_ });
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'jwk' }, ports()))).type).toBe(
      'badPublicKey',
    );
  });

  it('RFC 8555 7.3.1: an unknown account gets accountDoesNotExist', async () => {
    const body = await sign(es256, '', { kid: KID, nonce: 'n1', url: URL_ });
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'kid' }, ports()))).type).toBe(
      'accountDoesNotExist',
    );
  });

  it('RFC 8555 7.3.6: a request signed by a deactivated account is 401 unauthorized', async () => {
    const p = ports({ [KID]: { id: 'acc1', jwk: es256.jwk, status: 'deactivated' } });
    const body = await sign(es256, '', { kid: KID, nonce: 'n1', url: URL_ });
    const refused = await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'kid' }, p));
    expect([refused.type, refused.status]).toEqual(['unauthorized', 401]);
  });

  it('a request signed by another key than the account key does not verify', async () => {
    const other = await signer('ES256');
    const p = ports({ [KID]: { id: 'acc1', jwk: es256.jwk, status: 'valid' } });
    const body = await sign(other, '', { kid: KID, nonce: 'n1', url: URL_ });
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'kid' }, p))).type).toBe(
      'malformed',
    );
  });

  it.each([
    [null],
    ['text'],
    [[1]],
    [{ protected: 1, payload: '', signature: '' }],
    [{ protected: '!!', payload: '', signature: '' }],
  ])('an envelope %j is malformed', async (body) => {
    expect((await problemOf(authenticateAcmeRequest(body, { url: URL_, key: 'jwk' }, ports()))).type).toBe(
      'malformed',
    );
  });
});

describe('parseAcmePayload', () => {
  it('RFC 8555 6.3: an empty payload is a POST-as-GET, "{}" is not', () => {
    expect(parseAcmePayload(new Uint8Array())).toEqual({ postAsGet: true });
    expect(parseAcmePayload(new TextEncoder().encode('{}'))).toEqual({ postAsGet: false, json: {} });
  });
  it.each(['[]', '1', 'nope'])('a payload %s is malformed', (text) => {
    expect(() => parseAcmePayload(new TextEncoder().encode(text))).toThrow(AcmeProblem);
  });
});

describe('jwkThumbprint', () => {
  it('is the RFC 7638 example thumbprint', async () => {
    const jwk = {
      kty: 'RSA',
      n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
      e: 'AQAB',
    };
    expect(await jwkThumbprint(jwk)).toBe('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  });
});
