import { REDACTED } from './issuers.dto';

/**
 * `scheme://userinfo@`: a URL carrying credentials (RFC 3986 3.2.1), to the last `@` of the
 * authority, as URL parsers read `https://user:p@ss@host`.
 */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/i;

/** Whether a URL carries credentials (`https://user:password@host`): config refuses them. */
export function hasUrlCredentials(value: string): boolean {
  return USERINFO.test(value);
}

/** The URL with its credentials shown as `********` (for values stored before they were refused). */
export function hideUrlCredentials(value: string): string {
  return value.replace(USERINFO, `$1${REDACTED}@`);
}
