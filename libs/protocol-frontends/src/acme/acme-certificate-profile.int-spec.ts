import { X509Certificate } from 'node:crypto';
import { AcmeProfileDto } from '@certlane/contracts';
import { parseCertificates } from '@certlane/pki';
import { freePort, httpsRequest, HttpsResult, startTestSystem, TestSystem } from '@certlane/testing';
import { csrFor, Http01Responder, TestAcmeClient } from './testing/acme-test-client';

const urn = (type: string) => `urn:ietf:params:acme:error:${type}`;
const DAY_MS = 86_400_000;
/** RFC 7633 id-pe-tlsfeature, and its value for status_request: SEQUENCE { INTEGER 5 }. */
const TLS_FEATURE_OID = '1.3.6.1.5.5.7.1.24';
const STATUS_REQUEST = Buffer.from('3003020105', 'hex');

const tlsFeatureOf = (pem: string) =>
  parseCertificates(pem)[0].extensions.find((extension) => extension.oid === TLS_FEATURE_OID);

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
    const staple = await api('POST', '/api/v1/profiles', {
      id: 'acme-staple',
      name: 'ACME must-staple',
      must_staple: true,
    });
    expect(staple.status).toBe(201);
    expect(
      (
        await api('POST', '/api/v1/admin/acme/profiles', {
          id: 'staple',
          certificate_profile_id: 'acme-staple',
        })
      ).status,
    ).toBe(201);
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

  /** An account of `profile` with a ready order for `name` (http-01 answered), `extra` in newOrder. */
  async function readyOrder(profile: string, name: string, extra: Record<string, string> = {}) {
    const c = await TestAcmeClient.create(
      `${system.services['protocol-frontends'].url}/acme/profile/${profile}/directory`,
      system.ca,
    );
    expect((await c.register()).status).toBe(201);
    const order = await c.post((await c.directory()).newOrder, {
      identifiers: [{ type: 'dns', value: name }],
      ...extra,
    });
    expect(order.status).toBe(201);
    const orderUrl = order.headers.location as string;
    const authz = (await c.post(order.json.authorizations[0], '')).json;
    const challenge = authz.challenges.find((ch: { type: string }) => ch.type === 'http-01');
    responder.answers.set(challenge.token, await c.keyAuthorization(challenge.token));
    expect((await c.post(challenge.url, {})).status).toBe(200);
    expect((await pollUntil(c, orderUrl, (json) => json.status !== 'pending')).json.status).toBe('ready');
    return { c, orderUrl, finalize: order.json.finalize as string, created: order.json };
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
    // allowed_ekus [serverAuth]: not the issuer's default serverAuth and clientAuth.
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it("RFC 7633: a certificate profile's must_staple puts the TLS feature status_request in what ACME issues", async () => {
    const { c, finalize } = await readyOrder('staple', 'staple.localhost');
    const finalized = await c.post(finalize, { csr: csrFor({ dns: ['staple.localhost'] }) });
    expect([finalized.status, finalized.json.status]).toEqual([200, 'valid']);
    const pem = (await c.post(finalized.json.certificate, '')).text;
    const feature = tlsFeatureOf(pem);
    expect(feature?.value).toEqual(STATUS_REQUEST);
    expect(parseCertificates(pem)[0].decoded.mustStaple).toBe(true);
  });

  it('RFC 7633: without must_staple in the certificate profile no TLS feature extension is added', async () => {
    const { c, finalize } = await readyOrder('rsaonly', 'plain.localhost');
    const finalized = await c.post(finalize, { csr: csrFor({ dns: ['plain.localhost'], key: 'rsa' }) });
    expect([finalized.status, finalized.json.status]).toEqual([200, 'valid']);
    const pem = (await c.post(finalized.json.certificate, '')).text;
    expect(parseCertificates(pem)[0].extensions.length).toBeGreaterThan(0);
    expect(tlsFeatureOf(pem)).toBeUndefined();
  });

  it('RFC 8555 7.4: notBefore/notAfter are malformed where the profile does not allow them; where it does, the certificate has the window asked for', async () => {
    const c = await TestAcmeClient.create(directory.replace('/rsaonly/', '/staple/'), system.ca);
    expect((await c.register()).status).toBe(201);
    const later = (ms: number) => new Date(Math.ceil((Date.now() + ms) / 1000) * 1000).toISOString();
    const refused = await c.post((await c.directory()).newOrder, {
      identifiers: [{ type: 'dns', value: 'window.localhost' }],
      notAfter: later(DAY_MS),
    });
    expect([refused.status, refused.json.type]).toEqual([400, urn('malformed')]);
    expect(refused.json.detail).toContain('does not accept notBefore or notAfter');

    const created = await api('POST', '/api/v1/admin/acme/profiles', {
      id: 'window',
      validity_days: 10,
      allow_requested_validity: true,
    });
    expect(created.status).toBe(201);
    expect((created.json() as AcmeProfileDto).allow_requested_validity).toBe(true);
    const windowed = await TestAcmeClient.create(directory.replace('/rsaonly/', '/window/'), system.ca);
    expect((await windowed.register()).status).toBe(201);
    for (const [asked, why] of [
      [{ notAfter: later(10 * DAY_MS + 60_000) }, 'longer than the 10 days'],
      [{ notBefore: later(-3_600_000) }, 'not backdated'],
      [{ notBefore: later(2 * DAY_MS), notAfter: later(DAY_MS) }, 'later than notBefore'],
      [{ notAfter: '2026-12-01' }, 'RFC 3339'],
    ] as const) {
      const answer = await windowed.post((await windowed.directory()).newOrder, {
        identifiers: [{ type: 'dns', value: 'window.localhost' }],
        ...asked,
      });
      expect([answer.status, answer.json.type]).toEqual([400, urn('malformed')]);
      expect(answer.json.detail).toContain(why);
    }

    // A window starting in an hour and lasting two days: the order shows it, the certificate has it.
    const notBefore = later(3_600_000);
    const notAfter = later(2 * DAY_MS + 3_600_000);
    const {
      c: owner,
      finalize,
      orderUrl,
      created: orderJson,
    } = await readyOrder('window', 'window.localhost', {
      notBefore,
      notAfter,
    });
    expect([orderJson.notBefore, orderJson.notAfter]).toEqual([notBefore, notAfter]);
    const finalized = await owner.post(finalize, { csr: csrFor({ dns: ['window.localhost'] }) });
    expect([finalized.status, finalized.json.status]).toEqual([200, 'valid']);
    const leaf = new X509Certificate((await owner.post(finalized.json.certificate, '')).text);
    expect([new Date(leaf.validFrom).toISOString(), new Date(leaf.validTo).toISOString()]).toEqual([
      notBefore,
      notAfter,
    ]);
    const operatorView = await api('GET', `/api/v1/admin/acme/orders/${orderUrl.split('/').pop()}`);
    expect(operatorView.json()).toMatchObject({ not_before: notBefore, not_after: notAfter });

    // notAfter alone shortens the profile's validity; the certificate starts at issuance.
    const shortAfter = later(6 * 3_600_000);
    const short = await readyOrder('window', 'short.localhost', { notAfter: shortAfter });
    const shortFinal = await short.c.post(short.finalize, { csr: csrFor({ dns: ['short.localhost'] }) });
    const shortLeaf = new X509Certificate((await short.c.post(shortFinal.json.certificate, '')).text);
    expect(new Date(shortLeaf.validTo).toISOString()).toBe(shortAfter);
    expect(Math.abs(Date.parse(shortLeaf.validFrom) - Date.now())).toBeLessThan(120_000);
  });
});
