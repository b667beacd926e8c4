import {
  BACKCHANNEL_LOGOUT_EVENT,
  emailAdmitted,
  groupsOf,
  issuerProblem,
  logoutTokenProblem,
  normalizeScopes,
  oidcActorId,
  postLogoutRedirectUri,
  redirectUriProblem,
  rolesForGroups,
} from './oidc-rules';
import { ACTOR_ID_PATTERN } from '@certlane/contracts';

describe('OIDC rules', () => {
  it.each([
    ['https://idp.example.com', undefined],
    ['https://idp.example.com/realms/x', undefined],
    ['http://127.0.0.1:8080', undefined],
    ['http://localhost:8080', undefined],
    ['http://[::1]:8080', undefined],
    ['http://idp.example.com', 'issuer must use https (http only to a loopback address)'],
    ['ftp://idp.example.com', 'issuer must use https (http only to a loopback address)'],
    ['https://user:pw@idp.example.com', 'issuer must not carry credentials'],
    ['https://idp.example.com/?a=b', 'issuer must not have a query'],
    ['https://idp.example.com/#x', 'issuer must not have a fragment'],
    ['not a url', 'issuer must be an absolute URL'],
  ])('issuer %s -> %s', (issuer, problem) => {
    expect(issuerProblem(issuer)).toBe(problem);
  });

  it('redirect URIs must be the gateway callback', () => {
    expect(redirectUriProblem('https://certlane.example.com/auth/oidc/callback')).toBeUndefined();
    expect(redirectUriProblem('https://certlane.example.com/other')).toMatch(
      /must end with \/auth\/oidc\/callback/,
    );
    expect(redirectUriProblem('http://certlane.example.com/auth/oidc/callback')).toMatch(/https/);
  });

  it('asks for openid first and each scope once', () => {
    expect(normalizeScopes(['email', 'openid', 'email', 'groups'])).toEqual(['openid', 'email', 'groups']);
    expect(normalizeScopes([])).toEqual(['openid']);
  });

  it('admits emails by exact domain, verified only, when an allowlist is set', () => {
    expect(emailAdmitted({}, [])).toBe(true);
    expect(emailAdmitted({ email: 'a@example.com', email_verified: true }, ['example.com'])).toBe(true);
    expect(emailAdmitted({ email: 'a@EXAMPLE.com', email_verified: true }, ['example.com'])).toBe(true);
    expect(emailAdmitted({ email: 'a@sub.example.com', email_verified: true }, ['example.com'])).toBe(false);
    expect(emailAdmitted({ email: 'a@example.com.evil', email_verified: true }, ['example.com'])).toBe(false);
    expect(emailAdmitted({ email: 'a@example.com', email_verified: false }, ['example.com'])).toBe(false);
    expect(emailAdmitted({ email: 'a@example.com' }, ['example.com'])).toBe(false);
    expect(emailAdmitted({ email: '@example.com', email_verified: true }, ['example.com'])).toBe(false);
    expect(emailAdmitted({ email_verified: true }, ['example.com'])).toBe(false);
  });

  it('reads the group claim as strings only', () => {
    expect(groupsOf({ groups: ['a', 'b', 'a', 3] }, 'groups')).toEqual(['a', 'b']);
    expect(groupsOf({ roles: 'admins' }, 'roles')).toEqual(['admins']);
    expect(groupsOf({ groups: { a: 1 } }, 'groups')).toEqual([]);
    expect(groupsOf({}, 'groups')).toEqual([]);
  });

  it('maps groups to roles and names the unmapped ones', () => {
    const mappings = [
      { group_value: 'ops', role_id: 'r-operator' },
      { group_value: 'ops', role_id: 'r-viewer' },
      { group_value: 'audit', role_id: 'r-auditor' },
    ];
    expect(rolesForGroups(['ops', 'guests'], mappings)).toEqual({
      roles: ['r-operator', 'r-viewer'],
      unmapped: ['guests'],
    });
    expect(rolesForGroups([], mappings)).toEqual({ roles: [], unmapped: [] });
  });

  it('derives a stable actor id per issuer and subject within the actor id pattern', () => {
    const id = oidcActorId('https://idp.example.com', 'alice');
    expect(id).toMatch(ACTOR_ID_PATTERN);
    expect(oidcActorId('https://idp.example.com', 'alice')).toBe(id);
    expect(oidcActorId('https://other.example.com', 'alice')).not.toBe(id);
  });

  describe('logout token claims (OIDC Back-Channel Logout 1.0 2.4, 2.6; spec 5.5)', () => {
    const now = 1_800_000_000;
    const valid = { iat: now, jti: 'j1', sub: 'alice', events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } };
    it('accepts a token with the event, iat, jti and sub', () => {
      expect(logoutTokenProblem(valid, now, 300)).toBeUndefined();
      expect(logoutTokenProblem({ ...valid, sub: undefined, sid: 's1' }, now, 300)).toBeUndefined();
    });
    it.each([
      ['no events', { ...valid, events: undefined }, 'events claim missing'],
      ['events an array', { ...valid, events: [] }, 'events claim missing'],
      ['another event', { ...valid, events: { other: {} } }, 'logout event missing'],
      [
        'event value not an object',
        { ...valid, events: { [BACKCHANNEL_LOGOUT_EVENT]: 'x' } },
        'logout event missing',
      ],
      ['a nonce', { ...valid, nonce: 'n' }, 'nonce present'],
      ['no iat', { ...valid, iat: undefined }, 'iat missing'],
      ['iat in the future', { ...valid, iat: now + 120 }, 'iat in the future'],
      ['iat too old', { ...valid, iat: now - 301 }, 'too old'],
      ['no jti', { ...valid, jti: undefined }, 'jti missing'],
      ['empty jti', { ...valid, jti: '' }, 'jti missing'],
      ['both sub and sid', { ...valid, sid: 's1' }, 'exactly one of sub and sid required'],
      ['neither sub nor sid', { ...valid, sub: undefined }, 'exactly one of sub and sid required'],
    ])('refuses %s', (_name, payload, problem) => {
      expect(logoutTokenProblem(payload as Record<string, unknown>, now, 300)).toBe(problem);
    });
  });
});

describe('postLogoutRedirectUri (RP-initiated logout, ADR 0081 amendment)', () => {
  it('is the sign-in page beside the callback, behind a path prefix too, with no query', () => {
    expect(postLogoutRedirectUri('https://certlane.example/auth/oidc/callback')).toBe(
      'https://certlane.example/login',
    );
    expect(postLogoutRedirectUri('https://example.org:8443/pki/auth/oidc/callback?x=1')).toBe(
      'https://example.org:8443/pki/login',
    );
  });
});
