import { WEB_CSP, webAnswerFor } from './web-app-files';

describe('webAnswerFor', () => {
  it.each(['/', '/certificates', '/certificates/abc', '/agents'])(
    'answers the client route %s with index.html',
    (path) => expect(webAnswerFor('GET', path)).toEqual({ kind: 'index' }),
  );

  it.each([
    '/api',
    '/api/v1/nope',
    '/API/v1/certificates',
    '/auth/logout',
    '/acme/directory',
    '/scep',
    '/.well-known/est/cacerts',
    '/crl/x',
    '/ocsp/x',
    '/health',
    '/ready',
    '/metrics',
  ])('leaves the reserved path %s to the API (its JSON 404/405)', (path) =>
    expect(webAnswerFor('GET', path)).toEqual({ kind: 'none' }),
  );

  it('serves assets by their path and never answers a state-changing method', () => {
    expect(webAnswerFor('HEAD', '/assets/index-abc.js')).toEqual({
      kind: 'asset',
      path: '/assets/index-abc.js',
    });
    expect(webAnswerFor('POST', '/')).toEqual({ kind: 'none' });
    expect(webAnswerFor('DELETE', '/certificates')).toEqual({ kind: 'none' });
  });
});

describe('WEB_CSP', () => {
  it('allows no inline script or style in the CSP', () => {
    expect(WEB_CSP).toContain("default-src 'self'");
    expect(WEB_CSP).not.toContain('unsafe-inline');
    expect(WEB_CSP).not.toContain('unsafe-eval');
  });
});
