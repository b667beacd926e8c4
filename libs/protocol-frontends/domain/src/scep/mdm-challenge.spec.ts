import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, KeyObject, sign, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MDM_CHALLENGE_TYP, MdmChallengeClaims, MdmCsrFacts, verifyMdmChallenge } from './mdm-challenge';

const dir = mkdtempSync(join(tmpdir(), 'mdm-challenge-'));
function signer(name: string): { key: KeyObject; cert: X509Certificate } {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      join(dir, `${name}.key`),
    ].concat(['-out', join(dir, `${name}.crt`), '-subj', `/CN=${name}`, '-days', '2']),
    { stdio: 'ignore' },
  );
  return {
    key: createPrivateKey(readFileSync(join(dir, `${name}.key`))),
    cert: new X509Certificate(readFileSync(join(dir, `${name}.crt`))),
  };
}
const mdm = signer('mdm');
const stranger = signer('stranger');
const NOW = new Date('2026-11-25T12:00:00Z');
const T = Math.floor(NOW.getTime() / 1000);
const AUDIENCE = 'https://scep.example.test/scep/managed';
const CSR: MdmCsrFacts = {
  commonNames: ['device-1'],
  sans: [{ type: 'dns', value: 'device-1.example.test' }],
};

function token(
  claims: Partial<MdmChallengeClaims> & Record<string, unknown> = {},
  header: Record<string, unknown> = {},
  by = mdm,
  thumbprintOf = mdm.cert,
): string {
  const h = Buffer.from(
    JSON.stringify({
      alg: 'ES256',
      typ: MDM_CHALLENGE_TYP,
      'x5t#S256': createHash('sha256').update(thumbprintOf.raw).digest('base64url'),
      ...header,
    }),
  ).toString('base64url');
  const p = Buffer.from(
    JSON.stringify({
      ver: 1,
      iss: 'mdm',
      aud: AUDIENCE,
      nbf: T - 10,
      exp: T + 300,
      jti: 'j-1',
      sub: 'dev-1',
      cn: 'device-1',
      ...claims,
    }),
  ).toString('base64url');
  const s = sign('sha256', Buffer.from(`${h}.${p}`), { key: by.key, dsaEncoding: 'ieee-p1363' }).toString(
    'base64url',
  );
  return `${h}.${p}.${s}`;
}
const check = (t: string, csr = CSR) =>
  verifyMdmChallenge(t, { anchors: [mdm.cert], audience: AUDIENCE, now: NOW, csr });

describe('MDM-signed SCEP challenge (ADR 0059)', () => {
  it('accepts a challenge signed by a trusted MDM certificate, for this audience, now, matching the CSR', () => {
    expect(check(token())).toMatchObject({ ok: true, claims: { sub: 'dev-1', jti: 'j-1' } });
    expect(check(token({ aud: ['other', AUDIENCE], dns: ['DEVICE-1.example.test'] }))).toMatchObject({
      ok: true,
    });
  });

  it.each([
    ['malformed', 'not.a-jws'],
    ['malformed', `${token().split('.')[0]}.e30.AAAA`],
    ['malformed', token({}, { typ: 'JWT' })],
    ['malformed', token({}, { alg: 'none' })],
    ['malformed', token({ jti: undefined })],
    ['malformed', token({ exp: T + 2 * 86_400 })],
    ['unknown_version', token({ ver: 2 })],
    ['signature_invalid', token({}, {}, stranger, stranger.cert)],
    ['signature_invalid', token({}, {}, stranger)],
    ['expired', token({ exp: T - 120, nbf: T - 600 })],
    ['not_yet_valid', token({ nbf: T + 120, exp: T + 600 })],
    ['wrong_audience', token({ aud: 'https://elsewhere.example' })],
    ['claim_mismatch', token({ cn: 'device-2' })],
    ['claim_mismatch', token({ dns: ['other.example.test'] })],
  ])('answers %s', (status, challenge) => {
    expect(check(challenge)).toMatchObject({ ok: false, status });
  });

  it.each<[string, Partial<MdmChallengeClaims>, MdmCsrFacts]>([
    [
      'an IP SAN beside the claimed DNS names',
      { dns: ['device-1.example.test'] },
      { ...CSR, sans: [...CSR.sans, { type: 'ip', value: '10.0.0.9' }] },
    ],
    [
      'an e-mail SAN beside the claimed DNS names',
      { dns: ['device-1.example.test'] },
      { ...CSR, sans: [...CSR.sans, { type: 'email', value: 'ceo@corp.example' }] },
    ],
    [
      'a URI SAN under dns: [] (no SAN at all)',
      { dns: [] },
      { ...CSR, sans: [{ type: 'url', value: 'https://x' }] },
    ],
    ['a second CN', {}, { ...CSR, commonNames: ['device-1', 'vpn.corp.example'] }],
    ['a second CN first', {}, { ...CSR, commonNames: ['vpn.corp.example', 'device-1'] }],
    ['no CN under a cn claim', {}, { ...CSR, commonNames: [] }],
  ])('review finding 6: a claim names all of its part of the CSR: %s is claim_mismatch', (_, claims, csr) => {
    expect(check(token(claims), csr)).toMatchObject({ ok: false, status: 'claim_mismatch' });
  });

  it('leaves the SANs to the CSR policy without a dns claim, and the CN without a cn claim', () => {
    const free = { commonNames: ['a', 'b'], sans: [{ type: 'ip', value: '10.0.0.9' }] };
    expect(check(token({ cn: undefined }), free)).toMatchObject({ ok: true });
    expect(check(token({ dns: [] }), { ...CSR, sans: [] })).toMatchObject({ ok: true });
  });

  it('tolerates 60 seconds of clock skew on exp and nbf', () => {
    expect(check(token({ exp: T - 30 }))).toMatchObject({ ok: true });
    expect(check(token({ nbf: T + 30 }))).toMatchObject({ ok: true });
  });
});
