import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { OIDC_CALLBACK_PATH } from '@certlane/contracts';

/**
 * The OIDC decisions that need no I/O (ADR 0081): which URLs a provider may name, which scopes
 * it asks for, whose email is admitted, which roles a group claim gives, and whether a
 * back-channel logout token says what OpenID Connect Back-Channel Logout 1.0 and spec 5.5 demand.
 */

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * An https URL, or http to a loopback address (an IdP on the same host; RFC 8252 8.3 reasoning).
 * No credentials, query or fragment. Returns a problem in words, or undefined.
 */
export function urlProblem(raw: string, field: string, opts: { query?: boolean } = {}): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${field} must be an absolute URL`;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return `${field} must use https (http only to a loopback address)`;
  }
  if (url.username || url.password) return `${field} must not carry credentials`;
  if (url.hash || raw.includes('#')) return `${field} must not have a fragment`;
  if (!opts.query && url.search) return `${field} must not have a query`;
  return undefined;
}

export function issuerProblem(issuer: string): string | undefined {
  return urlProblem(issuer, 'issuer');
}

export function redirectUriProblem(redirectUri: string): string | undefined {
  const problem = urlProblem(redirectUri, 'redirect_uri');
  if (problem) return problem;
  if (!new URL(redirectUri).pathname.endsWith(OIDC_CALLBACK_PATH)) {
    return `redirect_uri must end with ${OIDC_CALLBACK_PATH} (the gateway's callback)`;
  }
  return undefined;
}

/** The scopes to ask for: `openid` first and always, each once. */
export function normalizeScopes(scopes: readonly string[]): string[] {
  return ['openid', ...new Set(scopes.filter((scope) => scope !== 'openid'))];
}

/**
 * The email-domain allowlist (spec 5.5): empty admits everyone; otherwise the `email` claim's
 * domain must equal one entry exactly (no subdomains) and the IdP must say it is verified.
 */
export function emailAdmitted(claims: Record<string, unknown>, allowedDomains: readonly string[]): boolean {
  if (allowedDomains.length === 0) return true;
  const email = claims['email'];
  if (typeof email !== 'string' || claims['email_verified'] !== true) return false;
  const at = email.lastIndexOf('@');
  if (at <= 0) return false;
  return allowedDomains.includes(email.slice(at + 1).toLowerCase());
}

/** The group claim's values: an array of strings, or one string; anything else is no group. */
export function groupsOf(claims: Record<string, unknown>, claimName: string): string[] {
  const value = claims[claimName];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value))
    return [...new Set(value.filter((item): item is string => typeof item === 'string'))];
  return [];
}

/** The roles the groups map to, and the groups no mapping names (audited). */
export function rolesForGroups(
  groups: readonly string[],
  mappings: readonly { group_value: string; role_id: string }[],
): { roles: string[]; unmapped: string[] } {
  const roles = new Set<string>();
  const unmapped: string[] = [];
  for (const group of groups) {
    const matched = mappings.filter((mapping) => mapping.group_value === group);
    if (matched.length === 0) unmapped.push(group);
    for (const mapping of matched) roles.add(mapping.role_id);
  }
  return { roles: [...roles].sort(), unmapped };
}

/**
 * The actor id of an OIDC identity: stable for the issuer and subject (a provider deleted and
 * registered again keeps its users' grants), within ACTOR_ID_PATTERN.
 */
export function oidcActorId(issuer: string, subject: string): string {
  return `oidc.${createHash('sha256').update(`${issuer}\n${subject}`).digest('hex').slice(0, 24)}`;
}

/**
 * What is wrong with a logout token's claims once its signature, `iss` and `aud` are verified,
 * or undefined: the logout event, `iat` within the accepted age, a `jti`, exactly one of `sub`
 * and `sid` (spec 5.5), and no `nonce` (which would make it an ID token).
 */
export function logoutTokenProblem(
  payload: Record<string, unknown>,
  nowSeconds: number,
  maxAgeSeconds: number,
): string | undefined {
  const events = payload['events'];
  if (typeof events !== 'object' || events === null || Array.isArray(events)) return 'events claim missing';
  const event = (events as Record<string, unknown>)[BACKCHANNEL_LOGOUT_EVENT];
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return 'logout event missing';
  if ('nonce' in payload) return 'nonce present';
  const iat = payload['iat'];
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return 'iat missing';
  if (iat > nowSeconds + 60) return 'iat in the future';
  if (iat < nowSeconds - maxAgeSeconds) return 'too old';
  if (typeof payload['jti'] !== 'string' || payload['jti'].length === 0 || payload['jti'].length > 256) {
    return 'jti missing';
  }
  const hasSub = typeof payload['sub'] === 'string' && payload['sub'].length > 0;
  const hasSid = typeof payload['sid'] === 'string' && payload['sid'].length > 0;
  if (hasSub === hasSid) return 'exactly one of sub and sid required';
  return undefined;
}

/**
 * Where the identity provider sends the browser after RP-initiated logout: the GUI's sign-in page
 * at the same place as the callback (`.../auth/oidc/callback` -> `.../login`, behind a path prefix
 * too).
 */
export function postLogoutRedirectUri(redirectUri: string): string {
  const url = new URL(redirectUri);
  url.pathname = url.pathname.replace(/\/auth\/oidc\/callback$/, '/login');
  url.search = '';
  return url.href;
}
