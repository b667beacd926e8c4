import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FlattenedSign, JWK } from 'jose';
import { X509Certificate } from 'node:crypto';
import {
  AcmeAccountDto,
  AcmeEabKeyCreated,
  AcmeEabKeyDto,
  AcmeProfileDto,
  AcmeProfileList,
  Page,
} from '@certlane/contracts';
import { freePort, httpsRequest, HttpsResult, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import { exchange, TestAcmeClient } from './testing/acme-test-client';

const run = promisify(execFile);
const urn = (type: string) => `urn:ietf:params:acme:error:${type}`;

/** The externalAccountBinding of a newAccount (RFC 8555 7.3.4), with one rule breakable at a time. */
async function binding(
  kid: string,
  hmacKey: string,
  url: string,
  jwk: JWK,
  override: { alg?: string; url?: string; nonce?: string } = {},
): Promise<Record<string, string>> {
  const jws = await new FlattenedSign(new TextEncoder().encode(JSON.stringify(jwk)))
    .setProtectedHeader({
      alg: override.alg ?? 'HS256',
      kid,
      url: override.url ?? url,
      ...(override.nonce ? { nonce: override.nonce } : {}),
    })
    .sign(Buffer.from(hmacKey, 'base64url'));
  return { protected: jws.protected!, payload: jws.payload, signature: jws.signature };
}

/**
 * The operators' side of the ACME server (ADR 0060) and external account binding (RFC 8555
 * 7.3.4) over the wire: EAB keys created, listed and revoked through the gateway, bindings checked
 * rule by rule with a plain client, lego and certbot registering with --eab, the account's owner
 * and team inherited from the key, and accounts listed and deactivated by an admin.
 */
describe('ACME operator routes and external account binding', () => {
  let system: TestSystem;
  let db: Client;
  let directory: string;
  let gatewayDirectory: string;
  let http01Port: number;
  let work: string;
  let caFile: string;

  const api = (method: string, path: string, body?: unknown, key?: string): Promise<HttpsResult> =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      method,
      ca: system.ca,
      headers: {
        authorization: `Bearer ${key ?? system.env.SERVICE_AUTH_SECRET}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function eabKey(body: Record<string, string> = {}): Promise<AcmeEabKeyCreated> {
    const created = await api('POST', '/api/v1/admin/acme/eab-keys', body);
    expect(created.status).toBe(201);
    return created.json() as AcmeEabKeyCreated;
  }

  const client = () => TestAcmeClient.create(directory, system.ca);

  async function newAccount(c: TestAcmeClient, payload: Record<string, unknown>) {
    const url = (await c.directory()).newAccount;
    return c.post(url, { termsOfServiceAgreed: true, ...payload }, { useJwk: true });
  }

  beforeAll(async () => {
    http01Port = await freePort();
    system = await startTestSystem('acmeops', ['auth', 'api-gateway', 'issuance', 'protocol-frontends'], {
      SERVICE_ACME_HTTP01_PORT: String(http01Port),
      SERVICE_ACME_EAB_REQUIRED: 'true',
    });
    directory = `${system.services['protocol-frontends'].url}/acme/directory`;
    gatewayDirectory = `${system.services['api-gateway'].url}/acme/directory`;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    work = mkdtempSync(join(tmpdir(), 'certlane-acme-ops-'));
    caFile = join(work, 'ca.pem');
    writeFileSync(caFile, system.ca);
    // The owners and teams the EAB keys below name: the inventory must know them.
    for (const id of ['web', 'payments', 'certbot-team'])
      expect((await api('POST', '/api/v1/teams', { id, name: id })).status).toBe(201);
    for (const id of ['alice', 'bob', 'lego-owner'])
      expect((await api('POST', '/api/v1/owners', { id, name: id })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('creates an EAB key whose HMAC key is answered once and sealed at rest', async () => {
    const created = await eabKey({ description: 'web team', owner: 'alice', team: 'web' });
    expect(created).toMatchObject({ status: 'unused', owner: 'alice', team: 'web', bound_account_id: null });
    expect(Buffer.from(created.hmac_key, 'base64url')).toHaveLength(32);
    const listed = (await api('GET', '/api/v1/admin/acme/eab-keys')).json() as Page<AcmeEabKeyDto>;
    const row = listed.data.find((k) => k.id === created.id)!;
    expect(row).toMatchObject({ status: 'unused', description: 'web team' });
    expect(JSON.stringify(listed)).not.toContain(created.hmac_key);
    const stored = await db.query('SELECT hmac_sealed FROM protocol_frontends.acme_eab_keys WHERE id = $1', [
      created.id,
    ]);
    expect(stored.rows[0].hmac_sealed).toMatch(/^v1\./);
    expect(stored.rows[0].hmac_sealed).not.toContain(created.hmac_key);
  });

  it('the operator routes are for admins only', async () => {
    expect((await api('GET', '/api/v1/admin/acme/accounts', undefined, 'not-a-key')).status).toBe(401);
    expect((await api('GET', '/api/v1/admin/acme/eab-keys', undefined, 'not-a-key')).status).toBe(401);
  });

  it('RFC 8555 7.3.4: the directory says externalAccountRequired', async () => {
    expect((await exchange('GET', directory, system.ca)).json.meta.externalAccountRequired).toBe(true);
  });

  it('RFC 8555 7.3.4: a newAccount without a binding gets externalAccountRequired', async () => {
    const answer = await newAccount(await client(), {});
    expect(answer.status).toBe(401);
    expect(answer.json.type).toBe(urn('externalAccountRequired'));
  });

  it('RFC 8555 7.3.4: a binding whose MAC was made with another key is refused', async () => {
    const key = await eabKey();
    const c = await client();
    const url = (await c.directory()).newAccount;
    const answer = await newAccount(c, {
      externalAccountBinding: await binding(key.id, randomBytes(32).toString('base64url'), url, c.jwk),
    });
    expect(answer.status).toBe(403);
    expect(answer.json.type).toBe(urn('unauthorized'));
  });

  it('RFC 8555 7.3.4: the binding MUST name the url of the request', async () => {
    const key = await eabKey();
    const c = await client();
    const url = (await c.directory()).newAccount;
    const answer = await newAccount(c, {
      externalAccountBinding: await binding(key.id, key.hmac_key, url, c.jwk, { url: `${url}x` }),
    });
    expect(answer.json.type).toBe(urn('malformed'));
  });

  it('RFC 8555 7.3.4: the binding MUST NOT carry a nonce', async () => {
    const key = await eabKey();
    const c = await client();
    const url = (await c.directory()).newAccount;
    const answer = await newAccount(c, {
      externalAccountBinding: await binding(key.id, key.hmac_key, url, c.jwk, { nonce: await c.nonce() }),
    });
    expect(answer.json.type).toBe(urn('malformed'));
  });

  it('RFC 8555 7.3.4: the binding MUST carry the account key of the request', async () => {
    const key = await eabKey();
    const [c, other] = [await client(), await client()];
    const url = (await c.directory()).newAccount;
    const answer = await newAccount(c, {
      externalAccountBinding: await binding(key.id, key.hmac_key, url, other.jwk),
    });
    expect(answer.json.type).toBe(urn('malformed'));
  });

  it('RFC 8555 7.3.4: a key binds one account; reused for another key, it is refused', async () => {
    const key = await eabKey({ owner: 'bob', team: 'payments' });
    const first = await client();
    const url = (await first.directory()).newAccount;
    const created = await newAccount(first, {
      externalAccountBinding: await binding(key.id, key.hmac_key, url, first.jwk),
    });
    expect(created.status).toBe(201);
    const accountId = (created.headers.location as string).split('/').pop()!;

    const second = await client();
    const reused = await newAccount(second, {
      externalAccountBinding: await binding(key.id, key.hmac_key, url, second.jwk),
    });
    expect(reused.status).toBe(403);
    expect(reused.json.type).toBe(urn('unauthorized'));

    // The account inherits the key's owner and team; the key says which account it bound.
    const account = (await api('GET', `/api/v1/admin/acme/accounts/${accountId}`)).json() as AcmeAccountDto;
    expect(account).toMatchObject({ eab_key_id: key.id, owner: 'bob', team: 'payments', status: 'valid' });
    const keys = (await api('GET', '/api/v1/admin/acme/eab-keys?per_page=500')).json() as Page<AcmeEabKeyDto>;
    expect(keys.data.find((k) => k.id === key.id)).toMatchObject({
      status: 'bound',
      bound_account_id: accountId,
    });

    // The same account key registering again gets its account back, no binding needed (7.3.1).
    const again = await newAccount(first, {});
    expect(again.status).toBe(200);
    expect(again.headers.location).toBe(created.headers.location);
  });

  it('a revoked EAB key binds no account', async () => {
    const key = await eabKey();
    // Spec 4.9: revoked by a POST; the DELETE it once was is 405 and revokes nothing.
    const deleted = await api('DELETE', `/api/v1/admin/acme/eab-keys/${key.id}`);
    expect([deleted.status, deleted.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    const listed = (
      await api('GET', '/api/v1/admin/acme/eab-keys?per_page=500')
    ).json() as Page<AcmeEabKeyDto>;
    expect(listed.data.find((k) => k.id === key.id)?.status).not.toBe('revoked');
    expect((await api('POST', `/api/v1/admin/acme/eab-keys/${key.id}/revoke`)).status).toBe(204);
    expect((await api('POST', `/api/v1/admin/acme/eab-keys/${key.id}/revoke`)).status).toBe(404);
    const c = await client();
    const url = (await c.directory()).newAccount;
    const answer = await newAccount(c, {
      externalAccountBinding: await binding(key.id, key.hmac_key, url, c.jwk),
    });
    expect(answer.json.type).toBe(urn('unauthorized'));
  });

  it('an admin deactivates an account: its key signs nothing more (RFC 8555 7.3.6); twice is 409', async () => {
    const key = await eabKey();
    const c = await client();
    const url = (await c.directory()).newAccount;
    const created = await newAccount(c, {
      externalAccountBinding: await binding(key.id, key.hmac_key, url, c.jwk),
    });
    c.kid = created.headers.location as string;
    const id = c.kid.split('/').pop()!;
    const pending = await c.post((await c.directory()).newOrder, {
      identifiers: [{ type: 'dns', value: 'before-deactivation.localhost' }],
    });
    expect(pending.status).toBe(201);
    const deactivated = await api('POST', `/api/v1/admin/acme/accounts/${id}/deactivate`);
    expect(deactivated.status).toBe(200);
    expect((deactivated.json() as AcmeAccountDto).status).toBe('deactivated');
    // Its unfinished orders end with it (7.3.6: "SHOULD cancel any pending operations").
    const ended = await api(
      'GET',
      `/api/v1/admin/acme/orders/${(pending.headers.location as string).split('/').pop()}`,
    );
    expect(ended.json()).toMatchObject({
      status: 'invalid',
      error: { type: urn('unauthorized') },
      authorizations: [{ status: 'deactivated' }],
    });
    const refused = await c.post((await c.directory()).newOrder, {
      identifiers: [{ type: 'dns', value: 'after-deactivation.localhost' }],
    });
    expect(refused.json.type).toBe(urn('unauthorized'));
    const twice = await api('POST', `/api/v1/admin/acme/accounts/${id}/deactivate`);
    expect(twice.status).toBe(409);
    expect((twice.json() as { code: string }).code).toBe('acme_account_not_valid');
    expect((await api('GET', '/api/v1/admin/acme/accounts/unknownaccount0')).status).toBe(404);
    const listed = (
      await api('GET', '/api/v1/admin/acme/accounts?status=deactivated')
    ).json() as Page<AcmeAccountDto>;
    expect(listed.data.map((a) => a.id)).toContain(id);
    expect(listed.data.every((a) => a.status === 'deactivated')).toBe(true);
    expect((await api('GET', '/api/v1/admin/acme/accounts?status=gone')).status).toBe(400);
  });

  it('refuses an EAB key or an ACME profile naming an owner, team or certificate profile the inventory does not know (400, each beside its field), so nothing it issues loses them', async () => {
    const key = await api('POST', '/api/v1/admin/acme/eab-keys', { owner: 'nobody', team: 'web' });
    expect(key.status).toBe(400);
    expect(key.json()).toMatchObject({
      code: 'reference_invalid',
      details: { fields: [{ field: 'owner', message: expect.stringContaining('no owner nobody') }] },
    });
    const profile = await api('POST', '/api/v1/admin/acme/profiles', {
      id: 'ghosts',
      owner: 'alice',
      team: 'no-such-team',
      certificate_profile_id: 'no-such-profile',
    });
    expect(profile.status).toBe(400);
    expect(profile.json()).toMatchObject({
      code: 'acme_profile_invalid',
      details: {
        fields: [
          { field: 'team', message: expect.stringContaining('no team no-such-team') },
          { field: 'certificate_profile_id', message: 'no certificate profile no-such-profile' },
        ],
      },
    });
    // Nothing was stored by either refusal.
    const keys = (await api('GET', '/api/v1/admin/acme/eab-keys?per_page=500')).json() as Page<AcmeEabKeyDto>;
    expect(keys.data.some((k) => k.owner === 'nobody')).toBe(false);
    expect((await api('GET', '/api/v1/admin/acme/profiles')).json()).not.toMatchObject({
      data: expect.arrayContaining([expect.objectContaining({ id: 'ghosts' })]),
    });
  });

  it('lego, through the gateway, registers with --eab and obtains a certificate', async () => {
    const key = await eabKey({ owner: 'lego-owner' });
    // Deleted from the inventory after the key named it: the key still binds an account.
    expect((await api('DELETE', '/api/v1/owners/lego-owner')).status).toBe(204);
    const path = join(work, 'lego');
    await run(
      'lego',
      [
        '--server',
        gatewayDirectory,
        '--path',
        path,
        '--email',
        'ops@example.com',
        '--accept-tos',
        '--eab',
        // `=` keeps an id or key that starts with '-' (base64url) from reading as an option.
        `--kid=${key.id}`,
        `--hmac=${key.hmac_key}`,
        '--domains',
        'lego-eab.localhost',
        '--http',
        '--http.port',
        `127.0.0.1:${http01Port}`,
        'run',
      ],
      { env: { ...process.env, LEGO_CA_CERTIFICATES: caFile }, timeout: 90_000 },
    );
    expect(readFileSync(join(path, 'certificates', 'lego-eab.localhost.crt'), 'utf8')).toContain(
      'BEGIN CERTIFICATE',
    );
    const keys = (await api('GET', '/api/v1/admin/acme/eab-keys?per_page=500')).json() as Page<AcmeEabKeyDto>;
    const bound = keys.data.find((k) => k.id === key.id)!;
    expect(bound.status).toBe('bound');
    const account = (
      await api('GET', `/api/v1/admin/acme/accounts/${bound.bound_account_id}`)
    ).json() as AcmeAccountDto;
    expect(account).toMatchObject({ owner: 'lego-owner', order_count: 1 });
    // The key's owner is gone from the inventory: the certificate is recorded there without it.
    const inventory = await db.query(
      `SELECT c.source, c.owner_id, c.tags FROM issuance.certificates c WHERE c.common_name = 'lego-eab.localhost'`,
    );
    expect(inventory.rows).toEqual([{ source: 'ACME', owner_id: null, tags: { acme_profile: 'default' } }]);
  }, 120_000);

  it('certbot registers with --eab-kid/--eab-hmac-key; without them the server refuses it', async () => {
    const dirs = ['config', 'work', 'logs'].map((d) => join(work, `certbot-${d}`));
    const common = [
      'register',
      '--non-interactive',
      '--server',
      directory,
      '--config-dir',
      dirs[0],
      '--work-dir',
      dirs[1],
      '--logs-dir',
      dirs[2],
      '--agree-tos',
      '-m',
      'ops@example.com',
    ];
    const env = { ...process.env, REQUESTS_CA_BUNDLE: caFile };
    const refused = await run('certbot', common, { env, timeout: 60_000 }).catch(
      (error: { stdout: string; stderr: string }) => error,
    );
    expect(`${(refused as { stdout: string }).stdout}${(refused as { stderr: string }).stderr}`).toMatch(
      /external account/i,
    );
    const key = await eabKey({ team: 'certbot-team' });
    // `=` keeps a key that starts with '-' (base64url) from reading as an option to argparse.
    await run('certbot', [...common, `--eab-kid=${key.id}`, `--eab-hmac-key=${key.hmac_key}`], {
      env,
      timeout: 60_000,
    });
    const accounts = join(dirs[0], 'accounts');
    expect(readdirSync(accounts).length).toBe(1);
    const keys = (await api('GET', '/api/v1/admin/acme/eab-keys?per_page=500')).json() as Page<AcmeEabKeyDto>;
    const bound = keys.data.find((k) => k.id === key.id)!;
    const account = (
      await api('GET', `/api/v1/admin/acme/accounts/${bound.bound_account_id}`)
    ).json() as AcmeAccountDto;
    expect(account).toMatchObject({ team: 'certbot-team', contact: ['mailto:ops@example.com'] });
  }, 120_000);

  describe('profiles', () => {
    const profileDirectory = () => directory.replace('/acme/directory', '/acme/profile/web/directory');

    beforeAll(async () => {
      // The profile's owner and team exist in the inventory, so its certificates are recorded with them.
      expect((await api('POST', '/api/v1/teams', { id: 'web-team', name: 'Web team' })).status).toBe(201);
      expect(
        (await api('POST', '/api/v1/owners', { id: 'web-owner', name: 'Web owner', team_id: 'web-team' }))
          .status,
      ).toBe(201);
      const created = await api('POST', '/api/v1/admin/acme/profiles', {
        id: 'web',
        description: 'Web servers, a week',
        validity_days: 7,
        allow_ip: false,
        allowed_domains: ['web.localhost'],
        denied_domains: ['internal.web.localhost'],
        owner: 'web-owner',
        team: 'web-team',
      });
      expect(created.status).toBe(201);
    });

    it('lists default (from the settings) and the stored profiles; refuses a duplicate and a bad domain', async () => {
      const listed = (await api('GET', '/api/v1/admin/acme/profiles')).json() as AcmeProfileList;
      expect(listed.data.map((p) => [p.id, p.stored])).toEqual([
        ['default', false],
        ['web', true],
      ]);
      expect(listed.data[0]).toMatchObject({
        external_account_required: true,
        directory_path: '/acme/directory',
      });
      expect(listed.data[1]).toMatchObject({
        validity_days: 7,
        directory_path: '/acme/profile/web/directory',
        owner: 'web-owner',
      });
      const duplicate = await api('POST', '/api/v1/admin/acme/profiles', { id: 'web' });
      expect([duplicate.status, (duplicate.json() as { code: string }).code]).toEqual([
        409,
        'acme_profile_exists',
      ]);
      const bad = await api('POST', '/api/v1/admin/acme/profiles', {
        id: 'bad',
        allowed_domains: ['*.x.com'],
      });
      expect([bad.status, (bad.json() as { code: string }).code]).toEqual([400, 'acme_profile_invalid']);
    });

    it('a profile given allowed domains without allow_ip issues for no IP address; allow_ip set keeps it', async () => {
      const domainsOnly = await api('POST', '/api/v1/admin/acme/profiles', {
        id: 'domains-only',
        allowed_domains: ['only.localhost'],
      });
      expect(domainsOnly.status).toBe(201);
      expect(domainsOnly.json()).toMatchObject({ allow_ip: false });
      const open = await api('POST', '/api/v1/admin/acme/profiles', { id: 'open' });
      expect(open.json()).toMatchObject({ allow_ip: true });
      const restricted = await api('POST', '/api/v1/admin/acme/profiles/open', {
        allowed_domains: ['a.localhost'],
      });
      expect(restricted.json()).toMatchObject({ allow_ip: false, allowed_domains: ['a.localhost'] });
      const explicit = await api('POST', '/api/v1/admin/acme/profiles', {
        id: 'domains-and-ip',
        allowed_domains: ['only.localhost'],
        allow_ip: true,
      });
      expect(explicit.json()).toMatchObject({ allow_ip: true });
      for (const id of ['domains-only', 'open', 'domains-and-ip'])
        expect((await api('POST', `/api/v1/admin/acme/profiles/${id}/delete`)).status).toBe(204);
    });

    it('draft-ietf-acme-profiles: the directory lists the profiles; each profile has its own directory', async () => {
      const meta = (await exchange('GET', directory, system.ca)).json.meta;
      expect(meta.profiles).toEqual({ default: expect.any(String), web: 'Web servers, a week' });
      const web = (await exchange('GET', profileDirectory(), system.ca)).json;
      expect(web.newOrder).toBe(profileDirectory().replace('directory', 'new-order'));
      expect(web.meta.externalAccountRequired).toBe(false);
    });

    it("a profile's identifier rules refuse names outside its allowed domains, denied names and IP addresses", async () => {
      const c = await TestAcmeClient.create(profileDirectory(), system.ca);
      expect((await c.register()).status).toBe(201);
      const newOrder = (await c.directory()).newOrder;
      for (const identifier of [
        { type: 'dns', value: 'elsewhere.localhost' },
        { type: 'dns', value: 'a.internal.web.localhost' },
        { type: 'ip', value: '127.0.0.1' },
      ]) {
        const refused = await c.post(newOrder, { identifiers: [identifier] });
        expect([refused.status, refused.json.type]).toEqual([400, urn('rejectedIdentifier')]);
        expect(refused.json.subproblems[0].identifier).toEqual(identifier);
      }
      const ok = await c.post(newOrder, { identifiers: [{ type: 'dns', value: 'a.web.localhost' }] });
      expect(ok.status).toBe(201);
      expect(ok.json.profile).toBe('web');
    });

    it('draft-ietf-acme-profiles: newOrder names a profile with "profile"; an unknown one is invalidProfile', async () => {
      const c = await TestAcmeClient.create(profileDirectory(), system.ca);
      await c.register();
      const unknown = await c.post((await c.directory()).newOrder, {
        identifiers: [{ type: 'dns', value: 'b.web.localhost' }],
        profile: 'nope',
      });
      expect(unknown.json.type).toBe(urn('invalidProfile'));
      // default requires an external account binding; this account was made without one.
      const toDefault = await c.post((await c.directory()).newOrder, {
        identifiers: [{ type: 'dns', value: 'b.web.localhost' }],
        profile: 'default',
      });
      expect(toDefault.json.type).toBe(urn('unauthorized'));
    });

    it("lego, on the profile's directory and without EAB, gets a certificate with the profile's validity", async () => {
      const path = join(work, 'lego-web');
      await run(
        'lego',
        [
          '--server',
          profileDirectory().replace(
            system.services['protocol-frontends'].url,
            system.services['api-gateway'].url,
          ),
          '--path',
          path,
          '--email',
          'ops@example.com',
          '--accept-tos',
          '--domains',
          'site.web.localhost',
          '--http',
          '--http.port',
          `127.0.0.1:${http01Port}`,
          'run',
        ],
        { env: { ...process.env, LEGO_CA_CERTIFICATES: caFile }, timeout: 90_000 },
      );
      const leaf = new X509Certificate(
        readFileSync(join(path, 'certificates', 'site.web.localhost.crt'), 'utf8'),
      );
      const days = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 86_400_000;
      expect(Math.round(days)).toBe(7);
      // The issuance audit record names the profile and the owner it gives (ADR 0060).
      const { rows } = await db.query(
        `SELECT envelope->'data'->'details' AS details FROM protocol_frontends.outbox
         WHERE envelope->'data'->>'action' = 'acme.certificate_issued'`,
      );
      expect(rows.map((r: { details: Record<string, unknown> }) => r.details)).toContainEqual(
        expect.objectContaining({ profile: 'web', owner: 'web-owner', team: 'web-team' }),
      );
      // The inventory records it with source ACME, the profile's owner and team (issue 19).
      const serial = leaf.serialNumber.toLowerCase().replace(/^0+/, '');
      const recorded = await db.query(
        `SELECT c.source, c.owner_id, c.team_id, c.tags FROM issuance.certificates c
         JOIN issuance.certificate_versions v ON v.certificate_id = c.id
         WHERE ltrim(lower(v.serial_number), '0') = $1`,
        [serial],
      );
      expect(recorded.rows).toEqual([
        { source: 'ACME', owner_id: 'web-owner', team_id: 'web-team', tags: { acme_profile: 'web' } },
      ]);
    }, 120_000);

    it('an update stores default from its settings; a delete removes a profile, whose directory is then 404', async () => {
      // Spec 4.9: update and delete are POSTs; PUT and DELETE are 405 and change nothing.
      const put = await api('PUT', '/api/v1/admin/acme/profiles/default', { description: 'Not stored' });
      expect([put.status, put.headers.allow]).toEqual([405, 'POST']);
      const removed = await api('DELETE', '/api/v1/admin/acme/profiles/web');
      expect([removed.status, removed.headers.allow]).toEqual([405, 'POST']);
      expect((await exchange('GET', profileDirectory(), system.ca)).status).toBe(200);
      const listed = (await api('GET', '/api/v1/admin/acme/profiles')).json() as AcmeProfileList;
      expect(listed.data.find((p) => p.id === 'default')).toMatchObject({ stored: false });
      const updated = await api('POST', '/api/v1/admin/acme/profiles/default', {
        description: 'Everything else',
      });
      expect(updated.status).toBe(200);
      expect(updated.json() as AcmeProfileDto).toMatchObject({
        id: 'default',
        stored: true,
        external_account_required: true,
        description: 'Everything else',
      });
      expect((await api('POST', '/api/v1/admin/acme/profiles/absent', { allow_ip: true })).status).toBe(404);
      expect((await api('POST', '/api/v1/admin/acme/profiles/web/delete')).status).toBe(204);
      expect((await exchange('GET', profileDirectory(), system.ca)).status).toBe(404);
      expect((await api('POST', '/api/v1/admin/acme/profiles/web/delete')).status).toBe(404);
    });
  });
});
