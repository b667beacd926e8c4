import { startTestSystem, TestSystem } from '@certlane/testing';
import { ApiClient, expandPath, queryString } from './api-client';
import { ApiClientConfigError, ApiError } from './api-errors';
import { OPERATIONS } from './generated/operations';
import { HttpsJsonClient } from './https-json-client';

/** The client typed from the API description, against the real gateway and issuance service. */
describe('ApiClient (generated from docs/openapi.json)', () => {
  let system: TestSystem;
  let http: HttpsJsonClient;
  let api: ApiClient;

  beforeAll(async () => {
    system = await startTestSystem('api-client', ['auth', 'issuance', 'api-gateway']);
    http = new HttpsJsonClient({
      baseUrl: system.services['api-gateway'].url,
      apiKey: system.env.SERVICE_AUTH_SECRET!,
      caBundle: system.ca,
    });
    api = new ApiClient(http);
  });
  afterAll(async () => {
    http?.close();
    await system?.stop();
  });

  it('creates, reads, lists, updates and deletes a renewal policy by operation id', async () => {
    const created = await api.call('createRenewalPolicy', {
      body: { name: 'typed-client', max_retries: 2, renewal_window_days: 20 },
    });
    expect(created).toMatchObject({ name: 'typed-client', renewal_window_days: 20 });
    const read = await api.call('getRenewalPolicy', { path: { id: created.id } });
    expect(read.id).toBe(created.id);
    const page = await api.call('listRenewalPolicies', { query: { page: 1, per_page: 500 } });
    expect(page.data.map((policy) => policy.id)).toContain(created.id);
    const updated = await api.call('updateRenewalPolicy', {
      path: { id: created.id },
      body: { name: 'typed-client-2', max_retries: 3 },
    });
    expect(updated.name).toBe('typed-client-2');
    await expect(api.call('deleteRenewalPolicy', { path: { id: created.id } })).resolves.toBeUndefined();
  });

  it('rejects with the error code of the body (spec 7)', async () => {
    const missing = api.call('getRenewalPolicy', { path: { id: 'rp-nope' } });
    await expect(missing).rejects.toBeInstanceOf(ApiError);
    await expect(missing).rejects.toMatchObject({ status: 404, code: 'renewal_policy_not_found' });
  });

  it('refuses a non-JSON operation and a missing path parameter before sending', () => {
    const fileOperation = Object.entries(OPERATIONS).find(([, op]) =>
      (op.produces as readonly string[]).some((media) => media !== 'application/json'),
    );
    expect(fileOperation).toBeDefined();
    expect(() => api.call(fileOperation![0] as never, {} as never)).toThrow(ApiClientConfigError);
    expect(() => expandPath('/api/v1/x/{id}', {})).toThrow(ApiClientConfigError);
    // `.` and `..` would be resolved away by the URL, reaching another route.
    expect(() => expandPath('/api/v1/teams/{id}', { id: '..' })).toThrow(ApiClientConfigError);
    expect(() => expandPath('/api/v1/teams/{id}', { id: '.' })).toThrow(ApiClientConfigError);
    expect(expandPath('/api/v1/teams/{id}', { id: '...' })).toBe('/api/v1/teams/...');
    expect(expandPath('/api/v1/x/{id}', { id: 'a/b c' })).toBe('/api/v1/x/a%2Fb%20c');
    expect(queryString({ page: 2, tag: ['a', 'b'], skip: undefined })).toBe('?page=2&tag=a&tag=b');
  });
});
