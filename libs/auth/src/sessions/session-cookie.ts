import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The `service_session` cookie value (spec 5.4; docs/decisions/0017-sessions-and-csrf.md):
 *
 *   v1.<kid>.<session id>.<mac>
 *
 * `kid` (8 hex) names the signing key, `session id` is 32 hex (128 random bits) and `mac` is the
 * base64url HMAC-SHA256 of `v1.<kid>.<session id>` under that key. Keys are derived with HKDF
 * (SHA-256) from configured secrets; the kid is derived from the same secret with another HKDF
 * label, so it names the key without revealing anything about it. The first key signs, every
 * key verifies, so a secret can be rotated by putting the new one first. A value with an unknown
 * kid, a bad MAC, another version, or the pre-login prefix `pl-` is refused.
 */
export const SESSION_COOKIE_VERSION = 'v1';
export const PRELOGIN_COOKIE_PREFIX = 'pl-';

const HKDF_SALT = 'certlane/session-cookie';
const VALUE = /^v1\.([0-9a-f]{8})\.([0-9a-f]{32})\.([A-Za-z0-9_-]{43})$/;

export interface SessionSigningKey {
  kid: string;
  key: Buffer;
}

export function deriveSigningKey(secret: string): SessionSigningKey {
  const ikm = Buffer.from(secret, 'utf8');
  const key = Buffer.from(hkdfSync('sha256', ikm, HKDF_SALT, 'v1 hmac-sha256 key', 32));
  const kid = Buffer.from(hkdfSync('sha256', ikm, HKDF_SALT, 'v1 key id', 4)).toString('hex');
  return { kid, key };
}

export function newSessionId(): string {
  return randomBytes(16).toString('hex');
}

/** A random CSRF token: 32 bytes, base64url. */
export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

/** SHA-256 hex: how CSRF tokens and user agents are stored. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented CSRF token with the stored SHA-256 (hex). */
export function csrfMatches(presented: string | undefined, expectedHash: string): boolean {
  if (!presented) return false;
  const given = Buffer.from(sha256Hex(presented), 'hex');
  const expected = Buffer.from(expectedHash, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export class SessionKeyring {
  private readonly keys: SessionSigningKey[];

  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error('a session keyring needs at least one secret');
    this.keys = secrets.map(deriveSigningKey);
  }

  /** The kid of the key that signs new cookies. */
  get currentKid(): string {
    return this.keys[0].kid;
  }

  sign(sessionId: string): string {
    const { kid, key } = this.keys[0];
    const payload = `${SESSION_COOKIE_VERSION}.${kid}.${sessionId}`;
    return `${payload}.${mac(key, payload).toString('base64url')}`;
  }

  /** The session id and kid of a genuine value, or null for anything else. Never throws. */
  verify(value: string): { sessionId: string; kid: string } | null {
    if (value.startsWith(PRELOGIN_COOKIE_PREFIX)) return null;
    const match = VALUE.exec(value);
    if (!match) return null;
    const [, kid, sessionId, presented] = match;
    const signing = this.keys.find((candidate) => candidate.kid === kid);
    if (!signing) return null;
    const expected = mac(signing.key, `${SESSION_COOKIE_VERSION}.${kid}.${sessionId}`);
    const given = Buffer.from(presented, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return { sessionId, kid };
  }
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload, 'utf8').digest();
}
