import { createHash } from 'node:crypto';
import {
  clearedSessionCookies,
  csrfTokenMatches,
  isStateChanging,
  readCookie,
  sessionCookies,
} from './session-cookies';

const hash = (value: string) => createHash('sha256').update(value).digest('hex');

describe(sessionCookies.name, () => {
  it('sets service_session HttpOnly and service_csrf readable, both Secure, Path=/, 8 h, SameSite', () => {
    expect(sessionCookies('v1.abc', 'tok', 'Lax', 28800)).toEqual([
      'service_session=v1.abc; Max-Age=28800; Path=/; Secure; SameSite=Lax; HttpOnly',
      'service_csrf=tok; Max-Age=28800; Path=/; Secure; SameSite=Lax',
    ]);
    expect(sessionCookies('v', 't', 'Strict', 10)[0]).toContain('SameSite=Strict');
  });

  it('clears both cookies with Max-Age=0 and the same attributes', () => {
    expect(clearedSessionCookies('Strict')).toEqual([
      'service_session=; Max-Age=0; Path=/; Secure; SameSite=Strict; HttpOnly',
      'service_csrf=; Max-Age=0; Path=/; Secure; SameSite=Strict',
    ]);
  });
});

describe(readCookie.name, () => {
  it('finds a cookie among others and ignores names that only contain it', () => {
    const header = 'xservice_session=bad; service_csrf=c1; service_session=v1.x.y.z; other=1';
    expect(readCookie(header, 'service_session')).toBe('v1.x.y.z');
    expect(readCookie(header, 'service_csrf')).toBe('c1');
    expect(readCookie(header, 'missing')).toBeUndefined();
    expect(readCookie(undefined, 'service_session')).toBeUndefined();
    expect(readCookie('service_session=', 'service_session')).toBe('');
  });
});

describe(csrfTokenMatches.name, () => {
  it('accepts the token whose SHA-256 is bound to the session', () => {
    expect(csrfTokenMatches('the-token', hash('the-token'))).toBe(true);
  });

  it('refuses a missing, empty or different token', () => {
    expect(csrfTokenMatches(undefined, hash('the-token'))).toBe(false);
    expect(csrfTokenMatches('', hash(''))).toBe(false);
    expect(csrfTokenMatches('the-token ', hash('the-token'))).toBe(false);
    expect(csrfTokenMatches('other', hash('the-token'))).toBe(false);
  });

  it('refuses when the stored hash is malformed instead of throwing', () => {
    expect(csrfTokenMatches('the-token', 'not-hex')).toBe(false);
    expect(csrfTokenMatches('the-token', '')).toBe(false);
  });
});

describe(isStateChanging.name, () => {
  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('%s changes state', (method) => {
    expect(isStateChanging(method)).toBe(true);
  });
  it.each(['GET', 'HEAD', 'OPTIONS'])('%s does not', (method) => {
    expect(isStateChanging(method)).toBe(false);
  });
});
