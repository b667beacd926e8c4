import { createHash } from 'node:crypto';

/** RFC 8555 8.1: token "." base64url(JWK thumbprint of the account key). */
export function keyAuthorization(token: string, accountThumbprint: string): string {
  return `${token}.${accountThumbprint}`;
}

/** RFC 8555 8.4: the `_acme-challenge` TXT value, base64url(SHA-256(key authorization)). */
export function dns01TxtValue(keyAuth: string): string {
  return createHash('sha256').update(keyAuth, 'utf8').digest('base64url');
}

/** RFC 8555 8.3: the path the http-01 validator fetches. */
export function http01Path(token: string): string {
  return `/.well-known/acme-challenge/${token}`;
}

/**
 * RFC 8555 8.3: the body must be the key authorization; the validator tolerates trailing
 * whitespace, which servers and editors add (Boulder and Pebble do the same).
 */
export function http01BodyMatches(body: string, expected: string): boolean {
  return body.replace(/\s+$/, '') === expected;
}
