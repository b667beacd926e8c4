import { X509Certificate } from 'node:crypto';
import { AcmeProfileDto } from '@certlane/contracts';
import { freePort, httpsRequest, HttpsResult, startTestSystem, TestSystem } from '@certlane/testing';
import { csrFor, Http01Responder, TestAcmeClient } from './testing/acme-test-client';

const urn = (type: string) => `urn:ietf:params:acme:error:${type}`;
const DAY_MS = 86_400_000;

/**
 * An ACME profile naming a certificate profile (issue 19 item 7, ADR 0068): the finalize's CSR
 * meets the certificate profile's rules or is badCSR, and its validity caps the ACME profile's.
 */
describe('ACME profiles mapped to a certificate profile', () => {
  let system: TestSystem;
  let responder: Http01Responder;
  let directory: string;

  const api = (method: string, path: string, body?: unknown): Promise<HttpsResult> =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    const http01Port = await freePort();
    system = await startTestSystem(
      'acmecertprof',
      ['auth', 'api-gateway', 'issuance', 'protocol-frontends'],
      {
        SERVICE_ACME_HTTP01_PORT: String(http01Port),
      },
    );
    responder = await Http01Responder.start(http01Port);
    directory = `${system.services['protocol-frontends'].url}/acme/profile/rsaonly/directory`;
    const certificateProfile = await api('POST', '/api/v1/profiles', {
      id: 'acme-rsa',
      name: 'ACME RSA',
      allowed_key_algorithms: ['RSA-2048'],
      allowed_ekus: ['serverAuth'],
      validity_days: 30,
    });
    expect(certificateProfile.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await responder?.stop();
    await system?.stop();
  });

  async function pollUntil(c: TestAcmeClient, url: string, done: (json: { status: string }) => boolean) {
    for (let i = 0; i < 100; i++) {
      const answer = await c.post(url, '');
      if (done(answer.json)) return answer;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${url} never reached the expected state`);
  }

  it('refuses an ACME profile naming a certificate profile issuance does not have', async () => {
    const refused = await api('POST', '/api/v1/admin/acme/profiles', {
      id: 'nosuch',
      certificate_profile_id: 'no-such-profile',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('no certificate profile no-such-profile');
  });

  it('RFC 8555 7.4: a CSR the certificate profile refuses is badCSR listing why, the order stays ready; an allowed one issues within its validity', async () => {
    const created = await api('POST', '/api/v1/admin/acme/profiles', {
      id: 'rsaonly',
      certificate_profile_id: 'acme-rsa',
      validity_days: 60,
    });
    expect(created.status).toBe(201);
    expect(created.json() as AcmeProfileDto).toMatchObject({
      certificate_profile_id: 'acme-rsa',
      validity_days: 60,
    });

    const c = await TestAcmeClient.create(directory, system.ca);
    expect((await c.register()).status).toBe(201);
    const order = await c.post((await c.directory()).newOrder, {
      identifiers: [{ type: 'dns', value: 'rsa.localhost' }],
    });
    expect(order.status).toBe(201);
    const orderUrl = order.headers.location as string;
    const authzUrl = order.json.authorizations[0];
    const authz = (await c.post(authzUrl, '')).json;
    const challenge = authz.challenges.find((ch: { type: string }) => ch.type === 'http-01');
    responder.answers.set(challenge.token, await c.keyAuthorization(challenge.token));
    expect((await c.post(challenge.url, {})).status).toBe(200);
    expect((await pollUntil(c, orderUrl, (json) => json.status !== 'pending')).json.status).toBe('ready');

    const refused = await c.post(order.json.finalize, { csr: csrFor({ dns: ['rsa.localhost'] }) });
    expect(refused.status).toBe(400);
    expect(refused.json.type).toBe(urn('badCSR'));
    expect(refused.json.detail).toContain('certificate profile acme-rsa');
    expect(refused.json.detail).toContain('key algorithm ECDSA-P256 is not allowed');
    expect((await c.post(orderUrl, '')).json.status).toBe('ready');

    const finalized = await c.post(order.json.finalize, {
      csr: csrFor({ dns: ['rsa.localhost'], key: 'rsa' }),
    });
    expect(finalized.status).toBe(200);
    expect(finalized.json.status).toBe('valid');
    const pem = (await c.post(finalized.json.certificate, '')).text;
    const leaf = new X509Certificate(pem);
    // The certificate profile's 30 days cap the ACME profile's 60.
    const lifetime = Date.parse(leaf.validTo) - Date.parse(leaf.validFrom);
    expect(lifetime).toBeLessThanOrEqual(30 * DAY_MS + 3_600_000);
    expect(lifetime).toBeGreaterThan(29 * DAY_MS);
  });
});
