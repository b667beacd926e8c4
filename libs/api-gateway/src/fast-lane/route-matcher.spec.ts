import { RouteMatcher } from './route-matcher';

describe('RouteMatcher', () => {
  const matcher = new RouteMatcher([
    { method: 'GET', path: '/api/v1/agents/:id/work', value: 'work' },
    { method: 'POST', path: '/api/v1/agents/:id/heartbeat', value: 'heartbeat' },
    { method: 'GET', path: '/api/v1/renewal-policies/:id', value: 'policy' },
    { method: 'GET', path: '/api/v1/certificates', query: true, value: 'list' },
  ]);

  it('matches the exact spelling and takes the parameters as written', () => {
    expect(matcher.match('GET', '/api/v1/agents/a-1.x_~/work')).toEqual({
      value: 'work',
      params: { id: 'a-1.x_~' },
      query: '',
    });
    expect(matcher.match('POST', '/api/v1/agents/a1/heartbeat')).toEqual({
      value: 'heartbeat',
      params: { id: 'a1' },
      query: '',
    });
    expect(matcher.match('GET', '/api/v1/renewal-policies/rp-x')?.value).toBe('policy');
  });

  it.each([
    ['another method', 'HEAD', '/api/v1/renewal-policies/rp-x'],
    ['a method of another route', 'POST', '/api/v1/agents/a1/work'],
    ['a query string', 'GET', '/api/v1/renewal-policies/rp-x?page=1'],
    ['a fragment', 'GET', '/api/v1/renewal-policies/rp-x#top'],
    ['a trailing slash', 'GET', '/api/v1/renewal-policies/rp-x/'],
    ['upper case literals', 'GET', '/API/v1/renewal-policies/rp-x'],
    ['a percent-encoded parameter', 'GET', '/api/v1/renewal-policies/rp%2Dx'],
    ['an empty parameter', 'GET', '/api/v1/renewal-policies/'],
    ['a doubled slash', 'GET', '/api/v1//renewal-policies/rp-x'],
    ['an extra segment', 'GET', '/api/v1/renewal-policies/rp-x/more'],
    ['a parameter of other characters', 'GET', '/api/v1/agents/a:b/work'],
    ['an absolute URL', 'GET', 'https://host/api/v1/renewal-policies/rp-x'],
    ['no method', undefined, '/api/v1/renewal-policies/rp-x'],
    ['no URL', 'GET', undefined],
  ])('leaves %s to Express', (_case, method, url) => {
    expect(matcher.match(method, url)).toBeNull();
  });

  it('hands the raw query string to a route that reads one', () => {
    expect(matcher.match('GET', '/api/v1/certificates')).toEqual({ value: 'list', params: {}, query: '' });
    expect(matcher.match('GET', '/api/v1/certificates?')).toEqual({ value: 'list', params: {}, query: '' });
    expect(matcher.match('GET', '/api/v1/certificates?status=Active&page=2&x=%20?y')).toEqual({
      value: 'list',
      params: {},
      query: 'status=Active&page=2&x=%20?y',
    });
  });

  it.each([
    ['a trailing slash before the query', '/api/v1/certificates/?status=Active'],
    ['a fragment', '/api/v1/certificates?status=Active#top'],
    ['upper case literals', '/api/v1/Certificates?status=Active'],
  ])('leaves a query route with %s to Express', (_case, url) => {
    expect(matcher.match('GET', url)).toBeNull();
  });

  it('refuses an over-long parameter', () => {
    expect(matcher.match('GET', `/api/v1/renewal-policies/${'a'.repeat(257)}`)).toBeNull();
    expect(matcher.match('GET', `/api/v1/renewal-policies/${'a'.repeat(256)}`)).not.toBeNull();
  });
});
