import { httpsRequest, HttpsResult, startTestSystem, TestSystem } from '@certlane/testing';
import { gatewayRouteTable } from './api-gateway.module';

/**
 * Hostile input over every gateway route (ADR 0040): a NUL in the path, the query or a JSON
 * string, JSON nested too deep, an object too wide, a prototype key, a body that does not
 * decompress. Each is a 400 with the rule's code -- before authentication, since the bounds are
 * checked where the request is parsed, so no credentials are sent -- never a 500, and the
 * gateway answers /health quickly throughout.
 */
describe('hostile input on every route', () => {
  let system: TestSystem;
  const routes = gatewayRouteTable();
  const withBody = (method: string) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method);

  beforeAll(async () => {
    system = await startTestSystem('hostile', ['auth', 'api-gateway', 'revocation'], {
      SERVICE_BUS_REQUEST_TIMEOUT: '2s',
      SERVICE_BREAKGLASS_ENABLED: 'true',
    });
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  const call = (
    service: string,
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<HttpsResult> =>
    httpsRequest(`${system.services[service].url}${path}`, {
      method,
      ca: system.ca,
      // Node's client frames a DELETE body only with an explicit Content-Length.
      headers:
        body === undefined
          ? headers
          : {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body)),
              ...headers,
            },
      body,
    });

  /** /health answers within the bound; the lane is never stalled behind a hostile body. */
  const healthIsFast = async (boundMs = 1_000) => {
    const started = Date.now();
    const health = await call('api-gateway', 'GET', '/health');
    expect([health.status, Date.now() - started < boundMs]).toEqual([200, true]);
  };

  const placeholder = (path: string) => path.replace(/:[a-zA-Z]+/g, 'hostile-placeholder');
  const wideObject = `{${Array.from({ length: 1_001 }, (_, i) => `"k${i}":"v"`).join(',')}}`;
  const deepJson = `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;

  const bodyCases: [string, string, Record<string, string>, string][] = [
    ['a NUL in a JSON string', '{"name":"a\\u0000b"}', {}, 'input_nul_byte'],
    ['JSON nested 10,000 levels', deepJson, {}, 'input_too_deep'],
    ['an object with 1,001 keys', wideObject, {}, 'input_too_wide'],
    ['a prototype key', '{"tags":{"constructor":{"prototype":{}}}}', {}, 'input_key_forbidden'],
    ['a __proto__ key', '{"__proto__":{"admin":true}}', {}, 'input_key_forbidden'],
    [
      'Content-Encoding br with a garbage body',
      'not brotli at all',
      { 'content-encoding': 'br' },
      'body_encoding_invalid',
    ],
  ];

  const cases = routes.flatMap((route) => {
    const name = `${route.method} ${route.path}`;
    const path = placeholder(route.path);
    const list: [string, string, string, string | undefined, Record<string, string>, string][] = [
      [name, 'a NUL in the query', `${path}?q=%00`, undefined, {}, 'input_nul_byte'],
    ];
    if (route.path.includes(':')) {
      const nulPath = route.path.replace(/:[a-zA-Z]+/, '%00');
      list.push([name, 'a NUL in a path segment', placeholder(nulPath), undefined, {}, 'input_nul_byte']);
    }
    if (withBody(route.method)) {
      for (const [what, body, headers, code] of bodyCases) list.push([name, what, path, body, headers, code]);
    }
    return list.map(
      ([n, what, p, body, headers, code]) => [n, what, route.method, p, body, headers, code] as const,
    );
  });

  it.each(cases)('%s refuses %s with 400', async (_name, _what, method, path, body, headers, code) => {
    const response = await call('api-gateway', method, path, body, headers);
    expect([path, response.status, response.text]).toEqual([
      path,
      400,
      expect.stringContaining(`"code":"${code}"`),
    ]);
  });

  it('answers /health quickly after every hostile request above', async () => {
    await healthIsFast();
  });

  it('answers /health quickly while a 70,000-key body (878 KB) is refused without a key', async () => {
    const keys = Array.from({ length: 70_000 }, (_, i) => `"k${i}":"v"`).join(',');
    const body = `{"token":"x","actor_id":"y",${keys}}`;
    const hostile = Array.from({ length: 3 }, () =>
      call('api-gateway', 'POST', '/api/v1/auth/bootstrap', body),
    );
    await healthIsFast();
    for (const response of await Promise.all(hostile)) {
      expect([response.status, (response.json() as { code: string }).code]).toEqual([400, 'input_too_wide']);
    }
    await healthIsFast();
  });

  it.each([
    ['/crl/%00.crl', 'path'],
    ['/crl/iss-local/%00.crl', 'path'],
    ['/crl/iss-local.crl?x=%00', 'query'],
  ])('refuses %s on the revocation listener with 400 input_nul_byte', async (path, location) => {
    const response = await call('revocation', 'GET', path);
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ code: 'input_nul_byte', details: { in: location } });
  });

  it('refuses a query NUL on a fast-lane route as Express does', async () => {
    const response = await call('api-gateway', 'GET', '/api/v1/certificates?owner_id=%00');
    expect(response.json()).toMatchObject({ code: 'input_nul_byte', details: { in: 'query' } });
  });
});
