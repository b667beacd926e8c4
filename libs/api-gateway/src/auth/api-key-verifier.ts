import { createHash, timingSafeEqual } from 'node:crypto';

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Checks a presented bearer key against a configured key by SHA-256 hash in constant time:
 * only the hash is kept in memory, and the comparison takes the same time wherever the
 * digests differ.
 */
export class ApiKeyVerifier {
  private readonly expectedHash: Buffer;

  constructor(secret: string) {
    this.expectedHash = sha256(secret);
  }

  matches(presented: string): boolean {
    return this.matchesHash(sha256(presented));
  }

  /** The same check when the caller already holds the presented key's SHA-256. */
  matchesHash(presentedHash: Buffer): boolean {
    return timingSafeEqual(presentedHash, this.expectedHash);
  }
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header ?? '');
  return match?.[1];
}
