import { problemOf } from '../testing/problem-of';
import { http01RedirectTarget, MAX_HTTP01_REDIRECTS } from './http01-redirect';

const from = new URL('http://a.example:80/.well-known/acme-challenge/tok');
const ports = { http: 80, https: 443 };

describe('http01RedirectTarget', () => {
  it.each([
    ['/other/path', 'http://a.example/other/path'],
    ['https://b.example/x', 'https://b.example/x'],
    ['http://b.example:80/x', 'http://b.example/x'],
  ])('follows %s', (location, want) => {
    expect(http01RedirectTarget(location, from, ports, 0).href).toBe(want);
  });

  it.each([
    ['https://b.example:8443/x', 'port'],
    ['http://b.example:8080/x', 'port'],
    ['ftp://b.example/x', 'port'],
    ['http://user:pw@b.example/x', 'credentials'],
    ['http://10.0.0.1/x', 'IP address'],
  ])('refuses %s', (location, why) => {
    const problem = problemOf(() => http01RedirectTarget(location, from, ports, 0));
    expect(problem.type).toBe('unauthorized');
    expect(problem.detail).toContain(why);
  });

  it('refuses a redirect without a Location', () => {
    expect(problemOf(() => http01RedirectTarget(undefined, from, ports, 0)).type).toBe('unauthorized');
  });

  it(`stops after ${MAX_HTTP01_REDIRECTS} redirects`, () => {
    expect(http01RedirectTarget('/x', from, ports, MAX_HTTP01_REDIRECTS - 1).pathname).toBe('/x');
    expect(problemOf(() => http01RedirectTarget('/x', from, ports, MAX_HTTP01_REDIRECTS)).type).toBe(
      'connection',
    );
  });

  it('follows to the test port when validation uses one', () => {
    const testFrom = new URL('http://a.localhost:5002/.well-known/acme-challenge/tok');
    expect(http01RedirectTarget('/moved', testFrom, { http: 5002, https: 443 }, 0).href).toBe(
      'http://a.localhost:5002/moved',
    );
  });
});
