import { isAgentPrincipal, PrincipalCache } from './principal-cache';

const alice = {
  actor_id: 'alice',
  actor_type: 'api-key' as const,
  admin: true,
  key_id: 'key-1',
  role_ids: [],
  permissions: [],
};
const bob = {
  actor_id: 'bob',
  actor_type: 'api-key' as const,
  admin: false,
  key_id: 'key-2',
  role_ids: [],
  permissions: [],
};

describe(PrincipalCache.name, () => {
  it('keys entries by the SHA-256 of the key, never the key itself', () => {
    expect(PrincipalCache.keyOf('secret-key')).toMatch(/^[0-9a-f]{64}$/);
    expect(PrincipalCache.keyOf('secret-key')).not.toContain('secret');
  });

  it('answers within the TTL and forgets after it', () => {
    const cache = new PrincipalCache(5000);
    cache.set('h1', alice, 1000);
    expect(cache.get('h1', 5999)).toEqual(alice);
    expect(cache.get('h1', 6000)).toBeUndefined();
    expect(cache.get('h1', 6001)).toBeUndefined();
  });

  it('does not cache an answer the auth service gave before a revocation event arrived', () => {
    const cache = new PrincipalCache(5000);
    const askedAt = cache.epoch;
    // The key is deleted and its revocation event handled while the lookup is on the wire.
    cache.dropKey('key-1');
    expect(cache.set('h1', alice, 0, undefined, askedAt)).toBe(true);
    expect(cache.get('h1', 1)).toBeUndefined();
  });

  it('caches an answer when no revocation arrived while it was asked for', () => {
    const cache = new PrincipalCache(5000);
    const askedAt = cache.epoch;
    expect(cache.set('h1', alice, 0, undefined, askedAt)).toBe(true);
    expect(cache.get('h1', 1)).toEqual(alice);
  });

  it.each([
    ['a revoked session', (cache: PrincipalCache) => cache.dropSession('s-1')],
    ['changed grants of an actor', (cache: PrincipalCache) => cache.dropActor('bob')],
    ['changed permissions of a role', (cache: PrincipalCache) => cache.clear()],
  ])('counts %s as a revocation an earlier answer must not outlive', (_case, revoke) => {
    const cache = new PrincipalCache(5000);
    const askedAt = cache.epoch;
    revoke(cache);
    cache.set('h1', alice, 0, undefined, askedAt);
    expect(cache.get('h1', 1)).toBeUndefined();
  });

  it('drops every entry of a revoked key and keeps the others', () => {
    const cache = new PrincipalCache(5000);
    cache.set('h1', alice, 0);
    cache.set('h2', bob, 0);
    cache.dropKey('key-1');
    expect(cache.get('h1', 1)).toBeUndefined();
    expect(cache.get('h2', 1)).toEqual(bob);
  });

  it('drops the entries of an actor whose grants changed, and everything on clear', () => {
    const cache = new PrincipalCache(5000);
    cache.set('h1', alice, 0);
    cache.set('h2', bob, 0);
    cache.dropActor('bob');
    expect(cache.get('h2', 1)).toBeUndefined();
    expect(cache.get('h1', 1)).toEqual(alice);
    cache.clear();
    expect(cache.get('h1', 1)).toBeUndefined();
  });

  describe('a key with expires_at (spec 5.1: an expired key is refused)', () => {
    const expiresAt = 10_000;
    const expiring = { ...bob, expires_at: new Date(expiresAt).toISOString() };

    it('answers up to the millisecond before the key expires and not from that millisecond on', () => {
      const cache = new PrincipalCache(5000);
      expect(cache.set('h', expiring, expiresAt - 1000)).toBe(true);
      expect(cache.get('h', expiresAt - 1)).toEqual(expiring);
      expect(cache.get('h', expiresAt)).toBeUndefined();
    });

    it('still forgets after the TTL when the key expires later', () => {
      const cache = new PrincipalCache(5000);
      cache.set('h', expiring, 0);
      expect(cache.get('h', 4999)).toEqual(expiring);
      expect(cache.get('h', 5000)).toBeUndefined();
    });

    it('caches nothing and says so when the key expired before the answer was cached', () => {
      const cache = new PrincipalCache(5000);
      expect(cache.set('h', expiring, expiresAt)).toBe(false);
      expect(cache.get('h', expiresAt - 1)).toBeUndefined();
    });

    it('treats an unreadable expires_at as already past', () => {
      const cache = new PrincipalCache(5000);
      expect(cache.set('h', { ...bob, expires_at: 'not a date' }, 0)).toBe(false);
      expect(cache.get('h', 1)).toBeUndefined();
    });

    it('refuses an agent key when it expires, not at the end of the long agent TTL', () => {
      const cache = new PrincipalCache(5000, 10, 300_000);
      const agent = {
        actor_id: 'agent.web-01',
        actor_type: 'api-key' as const,
        admin: false,
        key_id: 'key-a',
        role_ids: ['r-agent'],
        permissions: ['agent.heartbeat'],
        expires_at: new Date(expiresAt).toISOString(),
      };
      cache.set('agent', agent, 0);
      expect(cache.get('agent', expiresAt - 1)).toEqual(agent);
      expect(cache.get('agent', expiresAt)).toBeUndefined();
    });
  });

  it('evicts the oldest entry when full', () => {
    const cache = new PrincipalCache(5000, 2);
    cache.set('h1', alice, 0);
    cache.set('h2', bob, 0);
    cache.set('h3', alice, 0);
    expect(cache.get('h1', 1)).toBeUndefined();
    expect(cache.get('h2', 1)).toEqual(bob);
    expect(cache.get('h3', 1)).toEqual(alice);
  });
});

describe('PrincipalCache with sessions', () => {
  const session = {
    actor_id: 'carol',
    actor_type: 'session' as const,
    admin: true,
    session_id: 'a'.repeat(32),
    role_ids: [],
    permissions: [],
  };

  it('keeps the CSRF token hash with a session entry and drops the entry when the session is revoked', () => {
    const cache = new PrincipalCache(5000);
    cache.set('s1', session, 0, 'c'.repeat(64));
    cache.set('h2', bob, 0);
    expect(cache.lookup('s1', 1)).toEqual({ principal: session, csrfTokenHash: 'c'.repeat(64) });
    cache.dropSession('b'.repeat(32));
    expect(cache.get('s1', 1)).toEqual(session);
    cache.dropSession(session.session_id);
    expect(cache.get('s1', 1)).toBeUndefined();
    expect(cache.get('h2', 1)).toEqual(bob);
  });

  describe('agent keys', () => {
    const agent = {
      actor_id: 'agent.web-01',
      actor_type: 'api-key' as const,
      admin: false,
      key_id: 'key-a',
      role_ids: ['r-agent'],
      permissions: ['agent.heartbeat'],
      scoped_permissions: {},
    };

    it('keeps an agent principal for the agent TTL and everything else for the short one', () => {
      const cache = new PrincipalCache(5000, 10, 300_000);
      cache.set('agent', agent, 0);
      cache.set('other', bob, 0);
      expect(cache.get('other', 5000)).toBeUndefined();
      expect(cache.get('agent', 299_999)).toEqual(agent);
      expect(cache.get('agent', 300_000)).toBeUndefined();
    });

    it('still forgets an agent key at once when it is revoked', () => {
      const cache = new PrincipalCache(5000, 10, 300_000);
      cache.set('agent', agent, 0);
      cache.dropKey('key-a');
      expect(cache.get('agent', 1)).toBeUndefined();
    });

    it.each([
      ['an admin key', { admin: true }],
      ['a second role', { role_ids: ['r-agent', 'r-viewer'] }],
      ['another role', { role_ids: ['r-operator'] }],
      ['a scoped grant', { scoped_permissions: { 'team:x': ['certificate.view'] } }],
      ['an actor outside the agent convention', { actor_id: 'web-01' }],
      ['a session', { actor_type: 'session' as const }],
    ])('is not an agent principal with %s', (_label, change) => {
      expect(isAgentPrincipal(agent)).toBe(true);
      expect(isAgentPrincipal({ ...agent, ...change })).toBe(false);
    });
  });

  it('re-setting an entry moves it to the end of the eviction order', () => {
    const cache = new PrincipalCache(5000, 2);
    cache.set('h1', alice, 0);
    cache.set('h2', bob, 0);
    cache.set('h1', alice, 1);
    cache.set('h3', bob, 1);
    expect(cache.get('h1', 2)).toEqual(alice);
    expect(cache.get('h2', 2)).toBeUndefined();
  });
});
