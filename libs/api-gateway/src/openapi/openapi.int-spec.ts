import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';

const committed = (extension: string) =>
  readFileSync(join(__dirname, `../../../../docs/openapi.${extension}`), 'utf8');

/** GET /api/v1/openapi.json and .yaml (spec 9; ADR 0049): the committed document, to anyone. */
describe('the served API description', () => {
  let system: TestSystem;
  let gateway: string;

  beforeAll(async () => {
    system = await startTestSystem('openapi', ['auth', 'api-gateway']);
    gateway = system.services['api-gateway'].url;
  });
  afterAll(() => system?.stop());

  it('serves the committed JSON document without credentials', async () => {
    const response = await httpsRequest(`${gateway}/api/v1/openapi.json`, { ca: system.ca });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual(JSON.parse(committed('json')));
  });

  it('serves the same document as YAML', async () => {
    const response = await httpsRequest(`${gateway}/api/v1/openapi.yaml`, { ca: system.ca });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/yaml/);
    expect(parse(response.text)).toEqual(JSON.parse(committed('json')));
  });

  it('answers 405 to a write (spec 4.9)', async () => {
    const response = await httpsRequest(`${gateway}/api/v1/openapi.json`, { ca: system.ca, method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
  });
});
