import { createHash, timingSafeEqual } from 'node:crypto';
import { CSRF_COOKIE, SESSION_COOKIE } from '@certlane/contracts';

/**
 * The two session cookies of spec 5.4 (docs/decisions/0017-sessions-and-csrf.md):
 * `service_session` (HttpOnly) and `service_csrf` (readable by scripts, echoed in X-CSRF-Token),
 * both Secure, Path=/, Max-Age 8 h, SameSite from SERVICE_SESSION_SAMESITE.
 */
export function sessionCookies(
  session: string,
  csrfToken: string,
  sameSite: 'Lax' | 'Strict',
  maxAgeSeconds: number,
): string[] {
  const common = `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; Path=/; Secure; SameSite=${sameSite}`;
  return [`${SESSION_COOKIE}=${session}; ${common}; HttpOnly`, `${CSRF_COOKIE}=${csrfToken}; ${common}`];
}

/** Set-Cookie values that make the browser forget both cookies (logout). */
export function clearedSessionCookies(sameSite: 'Lax' | 'Strict'): string[] {
  return sessionCookies('', '', sameSite, 0);
}

/** The value of the first cookie called `name` in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

/** Spec 5.4: methods that change state need the CSRF token when authenticated by cookie. */
export function isStateChanging(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';
}

/**
 * Compares a presented X-CSRF-Token with the SHA-256 (hex) bound to the session, in constant
 * time; a missing or empty header never matches.
 */
export function csrfTokenMatches(presented: string | undefined, expectedHash: string): boolean {
  if (!presented) return false;
  const given = createHash('sha256').update(presented, 'utf8').digest();
  const expected = Buffer.from(expectedHash, 'hex');
  return expected.length === given.length && timingSafeEqual(given, expected);
}
