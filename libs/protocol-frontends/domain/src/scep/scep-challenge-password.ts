import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A challenge password's stored form: `hmac-sha256$salt$mac` (base64url). Challenge passwords are
 * generated shared secrets of at least 16 characters, checked on every enrollment: a salted
 * HMAC keeps them out of the database at a cost the enrollment rate can carry (ADR 0059), where
 * scrypt would cost more than the enrollment's own signatures.
 */
export function hashChallengePassword(password: string, salt: Buffer = randomBytes(16)): string {
  return ['hmac-sha256', salt.toString('base64url'), mac(password, salt).toString('base64url')].join('$');
}

/** Whether `password` matches a stored hash, compared in constant time; a malformed hash matches nothing. */
export function verifyChallengePassword(password: string, stored: string): boolean {
  const parts = stored.split('$');
  if (parts.length !== 3 || parts[0] !== 'hmac-sha256') return false;
  const expected = Buffer.from(parts[2], 'base64url');
  const actual = mac(password, Buffer.from(parts[1], 'base64url'));
  return expected.length === actual.length && timingSafeEqual(actual, expected);
}

const mac = (password: string, salt: Buffer): Buffer =>
  createHmac('sha256', salt).update(password, 'utf8').digest();
