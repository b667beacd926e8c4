import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IssuerDto } from '@certlane/contracts';
import { parseCertificates } from '@certlane/pki';
import {
  adminApiRequest,
  freePort,
  OpensslCaScripts,
  startTestSystem,
  TestSystem,
  writeOpensslCaScripts,
} from '@certlane/testing';
import { csrFor, Http01Responder, TestAcmeClient } from './testing/acme-test-client';

const DAY_MS = 86_400_000;

/**
 * An ACME profile whose issuer is a `script` issuer (ADR 0082): orders are validated here and
 * signed by a real openssl CA the issuer's command drives, through issuance's issue-and-record.
 */
describe('ACME profiles on a script issuer', () => {
  let dir: string;
  let ca: OpensslCaScripts;
  let system: TestSystem;
  let responder: Http01Responder;

  const api = (method: string, path: string, body?: unknown) => adminApiRequest(system, method, path, body);

  /** An ACME profile `id` on a new script issuer running `script`. */
  async function profileOn(id: string, script: string): Promise<void> {
    const issuer = await api('POST', '/api/v1/issuers', {
      name: `Script ${id}`,
      type: 'script',
      config: { issue_command: ca.command(script) },
    });
    expect(`${issuer.status} ${issuer.text}`).toMatch(/^201 /);
    const profile = await api('POST', '/api/v1/admin/acme/profiles', {
      id,
      issuer_id: (issuer.json() as IssuerDto).id,
      validity_days: 10,
    });
    expect(`${profile.status} ${profile.text}`).toMatch(/^201 /);
  }

  /** Registers, orders `name` under `profile`, answers http-01 and finalizes; the last order state. */
  async function finalizedOrder(profile: string, name: string) {
    const c = await TestAcmeClient.create(
      `${system.services['protocol-frontends'].url}/acme/profile/${profile}/directory`,
      system.ca,
    );
    expect((await c.register()).status).toBe(201);
    const order = await c.post((await c.directory()).newOrder, {
      identifiers: [{ type: 'dns', value: name }],
    });
    expect(order.status).toBe(201);
    const orderUrl = order.headers.location as string;
    const authz = (await c.post(order.json.authorizations[0], '')).json;
    const challenge = authz.challenges.find((ch: { type: string }) => ch.type === 'http-01');
    responder.answers.set(challenge.token, await c.keyAuthorization(challenge.token));
    expect((await c.post(challenge.url, {})).status).toBe(200);
    let state = (await c.post(orderUrl, '')).json;
    for (let i = 0; i < 100 && state.status === 'pending'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = (await c.post(orderUrl, '')).json;
    }
    expect(state.status).toBe('ready');
    await c.post(order.json.finalize, { csr: csrFor({ dns: [name] }) });
    for (let i = 0; i < 100; i++) {
      state = (await c.post(orderUrl, '')).json;
      if (state.status !== 'processing') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { c, state };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-acme-script-'));
    ca = writeOpensslCaScripts(dir);
    const http01Port = await freePort();
    system = await startTestSystem('acmescript', ['auth', 'api-gateway', 'issuance', 'protocol-frontends'], {
      SERVICE_ACME_HTTP01_PORT: String(http01Port),
      SERVICE_ISSUER_SCRIPTS_DIR: ca.scriptsDir,
    });
    responder = await Http01Responder.start(http01Port);
    await profileOn('scripted', 'issue');
    await profileOn('refusing', 'refuse');
  }, 120_000);

  afterAll(async () => {
    await responder?.stop();
    await system?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('issues a validated order through the script CA, with the profile validity it was told, and the CA in the chain', async () => {
    const { c, state } = await finalizedOrder('scripted', 'script.localhost');
    expect(state.status).toBe('valid');
    const [leaf, issuer] = parseCertificates((await c.post(state.certificate, '')).text);
    expect(leaf.issuer.text).toBe('CN=Script CA,O=Script CA Test');
    expect(leaf.decoded.subjectAltNames).toEqual([{ type: 'dns', value: 'script.localhost' }]);
    expect(Math.round((leaf.notAfter.getTime() - leaf.notBefore.getTime()) / DAY_MS)).toBe(10);
    expect(issuer.fingerprintSha256).toBe(parseCertificates(ca.caPem)[0].fingerprintSha256);
  });

  it('RFC 8555 7.4: an order the script CA refuses becomes invalid with a problem, and nothing is issued', async () => {
    const { state } = await finalizedOrder('refusing', 'refused.localhost');
    expect(state.status).toBe('invalid');
    expect(state.error).toMatchObject({ type: 'urn:ietf:params:acme:error:serverInternal' });
    expect(state.certificate).toBeUndefined();
  });
});
