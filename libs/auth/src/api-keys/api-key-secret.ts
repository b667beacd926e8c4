import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** A new API key: 32 random bytes as 64 hex characters (spec 5.6). */
export function generateApiKey(): string {
  return randomBytes(32).toString('hex');
}

/** What is stored and looked up: the SHA-256 of the key, hex. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function newApiKeyId(): string {
  return `key-${randomUUID()}`;
}

/** Constant-time comparison of two secrets of any length (both hashed first). */
export function secretsEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
