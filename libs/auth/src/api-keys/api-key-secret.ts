import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { AuthenticateApiKeyRequest, CertlaneError, ErrorCode } from '@certlane/contracts';

/** A new API key: 32 random bytes as 64 hex characters (spec 5.6). */
export function generateApiKey(): string {
  return randomBytes(32).toString('hex');
}

/** What is stored and looked up: the SHA-256 of the key, hex. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The stored hash an authentication request names: sent as such, or the key hashed here. */
export function presentedKeyHash(request: AuthenticateApiKeyRequest): string {
  if ((request.key === undefined) === (request.key_hash === undefined))
    throw new CertlaneError(ErrorCode.ValidationFailed, 'exactly one of key and key_hash is required', {
      fields: [{ field: 'key_hash', message: 'exactly one of key and key_hash is required' }],
    });
  return request.key_hash ?? hashApiKey(request.key!);
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
