import { generateKeyPairSync } from 'node:crypto';
import { validate } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { AgentKeyBody } from './agent-work.dto';
import { recipientJwkProblem } from './recipient-jwk';

const ecJwk = (curve: string) =>
  generateKeyPairSync('ec', { namedCurve: curve }).publicKey.export({ format: 'jwk' }) as Record<
    string,
    unknown
  >;

describe(recipientJwkProblem.name, () => {
  const good = ecJwk('P-256');

  it('accepts an EC P-256 public JWK, also with the members jose and WebCrypto add', () => {
    expect(recipientJwkProblem(good)).toBeNull();
    expect(
      recipientJwkProblem({
        ...good,
        kid: 'fetch-1',
        alg: 'ECDH-ES+A256KW',
        use: 'enc',
        ext: true,
        key_ops: [],
      }),
    ).toBeNull();
  });

  it.each([
    ['a string', 'x', 'must be a JWK object'],
    ['null', null, 'must be a JWK object'],
    ['an array', [good], 'must be a JWK object'],
  ])('refuses %s', (_name, value, message) => {
    expect(recipientJwkProblem(value)).toContain(message);
  });

  it('refuses a private key (d), naming the member', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(recipientJwkProblem(privateKey.export({ format: 'jwk' }))).toBe(
      'recipient_public_jwk must be a public key: it carries private member d',
    );
  });

  it('refuses a symmetric key (k) and RSA private members', () => {
    expect(recipientJwkProblem({ kty: 'oct', k: 'AAAA' })).toContain('private member k');
    expect(recipientJwkProblem({ ...good, p: 'AA' })).toContain('private member p');
  });

  it('refuses another key type or curve', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
    expect(recipientJwkProblem(rsa)).toBe('recipient_public_jwk.kty must be "EC"');
    expect(recipientJwkProblem(ecJwk('P-384'))).toBe('recipient_public_jwk.crv must be "P-256"');
    expect(recipientJwkProblem({ ...good, crv: 'secp256k1' })).toBe(
      'recipient_public_jwk.crv must be "P-256"',
    );
  });

  it('refuses unknown members', () => {
    expect(recipientJwkProblem({ ...good, x5c: ['MII'] })).toBe(
      'recipient_public_jwk has unknown member x5c',
    );
  });

  it.each([
    ['missing', undefined],
    ['padded', `${String(good.x)}=`],
    ['too short', String(good.x).slice(0, 42)],
    ['base64 instead of base64url', String(good.x).replace(/./, '+')],
    ['with non-zero trailing bits', `${String(good.x).slice(0, 42)}B`],
  ])('refuses an x coordinate %s', (_name, x) => {
    expect(recipientJwkProblem({ ...good, x })).toBe(
      'recipient_public_jwk.x must be 32 bytes, base64url without padding',
    );
  });

  it('refuses a point that is not on P-256 (invalid-curve keys)', () => {
    const y = Buffer.from(String(good.y), 'base64url');
    y[31] ^= 1;
    expect(recipientJwkProblem({ ...good, y: y.toString('base64url') })).toBe(
      'recipient_public_jwk is not a point on P-256',
    );
    const zero = Buffer.alloc(32).toString('base64url');
    expect(recipientJwkProblem({ ...good, x: zero, y: zero })).toBe(
      'recipient_public_jwk is not a point on P-256',
    );
  });

  it('accepts every freshly generated P-256 key (the curve equation is right)', () => {
    for (let i = 0; i < 20; i++) expect(recipientJwkProblem(ecJwk('P-256'))).toBeNull();
  });

  it('refuses another algorithm or use when the JWK names one', () => {
    expect(recipientJwkProblem({ ...good, alg: 'ECDH-ES' })).toBe(
      'recipient_public_jwk.alg must be "ECDH-ES+A256KW" when given',
    );
    expect(recipientJwkProblem({ ...good, use: 'sig' })).toBe(
      'recipient_public_jwk.use must be "enc" when given',
    );
  });
});

describe(AgentKeyBody.name, () => {
  const check = async (body: object) =>
    (
      await validate(plainToInstance(AgentKeyBody, body), { whitelist: true, forbidNonWhitelisted: true })
    ).map((error) => Object.values(error.constraints ?? {}).join('; '));

  it('validates the recipient key with the message of the rule it breaks', async () => {
    expect(await check({ recipient_public_jwk: ecJwk('P-256') })).toEqual([]);
    expect(await check({ recipient_public_jwk: ecJwk('P-256'), version_id: 'ver-1' })).toEqual([]);
    expect(await check({})).toEqual(['recipient_public_jwk must be a JWK object']);
    expect(await check({ recipient_public_jwk: ecJwk('P-384') })).toEqual([
      'recipient_public_jwk.crv must be "P-256"',
    ]);
  });
});
