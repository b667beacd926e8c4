import { generateKeyPairSync, KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { jwkMatchesKey } from './same-key';

const jwkOf = (key: KeyObject) => key.export({ format: 'jwk' }) as JWK;
const ec = (namedCurve: string) => generateKeyPairSync('ec', { namedCurve }).publicKey;
const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
const ed = () => generateKeyPairSync('ed25519').publicKey;
const withLeadingZero = (member: string) =>
  Buffer.concat([Buffer.alloc(1), Buffer.from(member, 'base64url')]).toString('base64url');

describe('jwkMatchesKey', () => {
  it.each([
    ['P-256', () => ec('P-256')],
    ['P-384', () => ec('P-384')],
    ['RSA', rsa],
    ['Ed25519', ed],
  ])('%s: its own key matches, another key of the same kind does not', (_name, make) => {
    const key = make();
    expect(jwkMatchesKey(jwkOf(key), key)).toBe(true);
    expect(jwkMatchesKey(jwkOf(key), make())).toBe(false);
  });

  it('matches the private key of the pair too (its public part)', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(jwkMatchesKey(jwkOf(publicKey), privateKey)).toBe(true);
  });

  it('an RSA modulus or an EC coordinate with a leading zero octet is the same number', () => {
    const r = rsa();
    expect(jwkMatchesKey({ ...jwkOf(r), n: withLeadingZero(jwkOf(r).n!) }, r)).toBe(true);
    const e = ec('P-256');
    expect(jwkMatchesKey({ ...jwkOf(e), x: withLeadingZero(jwkOf(e).x!) }, e)).toBe(true);
  });

  it('keys of other kinds or curves never match, nor JWKs missing members', () => {
    const p256 = ec('P-256');
    expect(jwkMatchesKey({ ...jwkOf(p256), crv: 'P-384' }, p256)).toBe(false);
    expect(jwkMatchesKey(jwkOf(p256), rsa())).toBe(false);
    expect(jwkMatchesKey({ kty: 'EC', crv: 'P-256', x: jwkOf(p256).x }, p256)).toBe(false);
    expect(jwkMatchesKey({ kty: 'oct', k: 'AAAA' }, p256)).toBe(false);
    const key = ed();
    expect(jwkMatchesKey({ kty: 'OKP', crv: 'Ed448', x: jwkOf(key).x }, key)).toBe(false);
  });
});
