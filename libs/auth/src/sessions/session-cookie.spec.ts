import { createHmac } from 'node:crypto';
import {
  csrfMatches,
  deriveSigningKey,
  newCsrfToken,
  newSessionId,
  SessionKeyring,
  sha256Hex,
} from './session-cookie';

const SECRET_A = 'a'.repeat(20) + '-first-session-secret';
const SECRET_B = 'b'.repeat(20) + '-second-session-secret';

describe(SessionKeyring.name, () => {
  const ring = new SessionKeyring([SECRET_A]);
  const sessionId = newSessionId();

  it('signs v1.<kid>.<session id>.<mac> and verifies its own value', () => {
    const value = ring.sign(sessionId);
    expect(value).toMatch(/^v1\.[0-9a-f]{8}\.[0-9a-f]{32}\.[A-Za-z0-9_-]{43}$/);
    expect(value.split('.')[1]).toBe(ring.currentKid);
    expect(ring.verify(value)).toEqual({ sessionId, kid: ring.currentKid });
  });

  it('derives the MAC key with HKDF, so the MAC is not an HMAC under the raw secret', () => {
    const value = ring.sign(sessionId);
    const payload = value.slice(0, value.lastIndexOf('.'));
    const underRawSecret = createHmac('sha256', SECRET_A).update(payload).digest('base64url');
    expect(value.endsWith(underRawSecret)).toBe(false);
    const { key } = deriveSigningKey(SECRET_A);
    expect(createHmac('sha256', key).update(payload).digest('base64url')).toBe(value.split('.')[3]);
  });

  it('gives different secrets different kids, and the same secret the same kid', () => {
    expect(deriveSigningKey(SECRET_A).kid).toBe(deriveSigningKey(SECRET_A).kid);
    expect(deriveSigningKey(SECRET_A).kid).not.toBe(deriveSigningKey(SECRET_B).kid);
  });

  it('refuses a tampered session id, a tampered MAC and a truncated value', () => {
    const value = ring.sign(sessionId);
    const [version, kid, id, macText] = value.split('.');
    const otherId = id.replace(/^./, id[0] === '0' ? '1' : '0');
    expect(ring.verify([version, kid, otherId, macText].join('.'))).toBeNull();
    const flipped = macText.replace(/^./, macText[0] === 'A' ? 'B' : 'A');
    expect(ring.verify([version, kid, id, flipped].join('.'))).toBeNull();
    expect(ring.verify(value.slice(0, -1))).toBeNull();
    expect(ring.verify(`${value}x`)).toBeNull();
  });

  it('refuses a value signed by an unknown kid, even with a MAC that is right for its key', () => {
    const other = new SessionKeyring([SECRET_B]);
    expect(ring.verify(other.sign(sessionId))).toBeNull();
  });

  it('refuses a forged value that reuses the current kid with another key', () => {
    const forger = deriveSigningKey(SECRET_B);
    const payload = `v1.${ring.currentKid}.${sessionId}`;
    const forged = `${payload}.${createHmac('sha256', forger.key).update(payload).digest('base64url')}`;
    expect(ring.verify(forged)).toBeNull();
  });

  it('never accepts the pre-login form, another version, or junk', () => {
    const value = ring.sign(sessionId);
    expect(ring.verify(`pl-${value}`)).toBeNull();
    expect(ring.verify(`pl-${sessionId}`)).toBeNull();
    expect(ring.verify(value.replace(/^v1/, 'v2'))).toBeNull();
    expect(ring.verify('')).toBeNull();
    expect(ring.verify('not-a-cookie')).toBeNull();
  });

  it('rotates: the first secret signs, the older one still verifies what it signed', () => {
    const old = new SessionKeyring([SECRET_A]);
    const rotated = new SessionKeyring([SECRET_B, SECRET_A]);
    const oldValue = old.sign(sessionId);
    expect(rotated.verify(oldValue)).toEqual({ sessionId, kid: old.currentKid });
    const newValue = rotated.sign(sessionId);
    expect(newValue.split('.')[1]).toBe(deriveSigningKey(SECRET_B).kid);
    expect(old.verify(newValue)).toBeNull();
  });

  it('refuses to build without a secret', () => {
    expect(() => new SessionKeyring([])).toThrow('at least one secret');
  });
});

describe('session secrets', () => {
  it('makes 128-bit session ids and 256-bit CSRF tokens, different each time', () => {
    expect(newSessionId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSessionId()).not.toBe(newSessionId());
    expect(Buffer.from(newCsrfToken(), 'base64url')).toHaveLength(32);
    expect(newCsrfToken()).not.toBe(newCsrfToken());
  });

  it('hashes with SHA-256 hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe(csrfMatches.name, () => {
  const token = newCsrfToken();

  it('accepts the token whose SHA-256 is stored', () => {
    expect(csrfMatches(token, sha256Hex(token))).toBe(true);
  });

  it('refuses a missing, empty, altered or other token, and a malformed stored hash', () => {
    expect(csrfMatches(undefined, sha256Hex(token))).toBe(false);
    expect(csrfMatches('', sha256Hex(''))).toBe(false);
    expect(csrfMatches(`${token}x`, sha256Hex(token))).toBe(false);
    expect(csrfMatches(newCsrfToken(), sha256Hex(token))).toBe(false);
    expect(csrfMatches(token, 'zz')).toBe(false);
  });
});
