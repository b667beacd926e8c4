import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FlattenedSign, JWK } from 'jose';
import { AcmeEabKeyCreated, AcmeProfileDto } from '@certlane/contracts';
import { parseCertificates } from '@certlane/pki';
import { renewalCertId } from '@certlane/protocol-frontends-domain';
import {
  BindServer,
  freePort,
  httpsRequest,
  HttpsResult,
  startBind,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';
import { setTxtRecords } from './testing/rfc2136';
import { csrFor, exchange, TestAcmeClient } from './testing/acme-test-client';

const run = promisify(execFile);
const urn = (type: string) => `urn:ietf:params:acme:error:${type}`;
const ISSUER_NAME = 'ca.persist.test';

/**
 * dns-persist-01 (draft-ietf-acme-dns-persist) against a real BIND 9 whose `_validation-persist`
 * records are written by RFC 2136 updates, per-profile CAA identities and EAB keys, and renewals
 * (RFC 9773 `replaces`, or the same identifiers again) stored as versions of one inventory
 * certificate.
 */
describe('ACME dns-persist-01, per-profile identities and EAB, renewals as inventory versions', () => {
  let system: TestSystem;
  let bind: BindServer;
  let db: Client;
  let defaultDirectory: string;
  let persistDirectory: string;
  let work: string;
  let caFile: string;

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
    // CAA naming only the persist profile's identity: that profile may issue under it, default not.
    bind = await startBind('test', await freePort(), [`profca IN CAA 0 issue "${ISSUER_NAME}"`]);
    system = await startTestSystem('acmepersist', ['auth', 'api-gateway', 'issuance', 'protocol-frontends'], {
      SERVICE_ACME_DNS_RESOLVERS: bind.address,
      SERVICE_ACME_CAA_IDENTITIES: 'certlane.test',
    });
    const origin = system.services['protocol-frontends'].url;
    defaultDirectory = `${origin}/acme/directory`;
    persistDirectory = `${origin}/acme/profile/persist/directory`;
    work = mkdtempSync(join(tmpdir(), 'certlane-acme-persist-'));
    caFile = join(work, 'ca.pem');
    writeFileSync(caFile, system.ca);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const created = await api('POST', '/api/v1/admin/acme/profiles', {
      id: 'persist',
      description: 'Standing DNS records',
      dns_persist_01: true,
      caa_identities: [ISSUER_NAME, 'CA.Persist.Test'],
    });
    expect(created.status).toBe(201);
    expect(created.json() as AcmeProfileDto).toMatchObject({
      dns_persist_01: true,
      caa_identities: [ISSUER_NAME],
    });
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
    await bind?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  async function pollUntil(c: TestAcmeClient, url: string, done: (json: { status: string }) => boolean) {
    for (let i = 0; i < 150; i++) {
      const answer = await c.post(url, '');
      if (done(answer.json)) return answer;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${url} never reached the expected state`);
  }

  async function account(directory = persistDirectory): Promise<TestAcmeClient> {
    const c = await TestAcmeClient.create(directory, system.ca);
    expect((await c.register()).status).toBe(201);
    return c;
  }

  /** Orders `name`, publishes `record` (or the right one) and answers the dns-persist-01 challenge. */
  async function persistOrder(
    c: TestAcmeClient,
    name: string,
    record: (kid: string) => string,
    extra: Record<string, unknown> = {},
  ) {
    const created = await c.post((await c.directory()).newOrder, {
      identifiers: [{ type: 'dns', value: name }],
      ...extra,
    });
    expect(created.status).toBe(201);
    const authzUrl = created.json.authorizations[0];
    const authz = (await c.post(authzUrl, '')).json;
    if (authz.status === 'valid') return { order: created, authz };
    const challenge = authz.challenges.find((ch: { type: string }) => ch.type === 'dns-persist-01');
    expect(challenge).toBeDefined();
    await setTxtRecords(bind, 'test', `_validation-persist.${name.replace(/^\*\./, '')}`, [record(c.kid!)]);
    expect((await c.post(challenge.url, {})).status).toBe(200);
    const done = await pollUntil(c, authzUrl, (json) => json.status !== 'pending');
    return { order: created, authz: done.json };
  }

  async function finalize(
    c: TestAcmeClient,
    orderAnswer: { json: { finalize: string }; headers: Record<string, unknown> },
    names: string[],
  ) {
    const orderUrl = orderAnswer.headers.location as string;
    await pollUntil(c, orderUrl, (json) => json.status === 'ready');
    const finalized = await c.post(orderAnswer.json.finalize, { csr: csrFor({ dns: names }) });
    expect(finalized.json.status).toBe('valid');
    const pem = (await c.post(finalized.json.certificate, '')).text;
    return { pem, certificateUrl: finalized.json.certificate as string };
  }

  function renewalIdOf(pem: string): string {
    const leaf = parseCertificates(pem)[0];
    return renewalCertId(leaf.decoded.authorityKeyIdentifier ?? Buffer.alloc(0), leaf.serialBytes);
  }

  describe('per-profile CAA identities', () => {
    it("RFC 8555 7.1.1: each profile's directory names its own caaIdentities", async () => {
      expect((await exchange('GET', persistDirectory, system.ca)).json.meta.caaIdentities).toEqual([
        ISSUER_NAME,
      ]);
      expect((await exchange('GET', defaultDirectory, system.ca)).json.meta.caaIdentities).toEqual([
        'certlane.test',
      ]);
    });

    /** lego (Debian, unmodified) with dns-01 through RFC 2136 updates to the test BIND. */
    async function lego(directory: string, domain: string): Promise<{ pem?: string; failure?: string }> {
      const path = join(work, `lego-${domain}`);
      try {
        await run(
          'lego',
          [
            '--server',
            directory,
            '--path',
            path,
            '--email',
            'ops@example.com',
            '--accept-tos',
            '--domains',
            domain,
            '--dns',
            'rfc2136',
            '--dns.resolvers',
            bind.address,
            '--dns.disable-cp',
            'run',
          ],
          {
            env: { ...process.env, LEGO_CA_CERTIFICATES: caFile, RFC2136_NAMESERVER: bind.address },
            timeout: 90_000,
          },
        );
      } catch (error) {
        return {
          failure: `${(error as { stdout?: string }).stdout}${(error as { stderr?: string }).stderr}`,
        };
      }
      return { pem: readFileSync(join(path, 'certificates', `${domain}.crt`), 'utf8') };
    }

    it("RFC 8659 4.2: CAA naming a profile's own identity permits that profile and forbids default (lego)", async () => {
      const allowed = await lego(persistDirectory, 'www.profca.test');
      expect(allowed.failure).toBeUndefined();
      expect(new X509Certificate(allowed.pem!).subjectAltName).toBe('DNS:www.profca.test');
      expect((await lego(defaultDirectory, 'web.profca.test')).failure).toContain(urn('caa'));
    }, 180_000);

    it('refuses a profile whose caa_identities are not domain names', async () => {
      const bad = await api('POST', '/api/v1/admin/acme/profiles', {
        id: 'bad',
        caa_identities: ['not a name'],
      });
      expect(bad.status).toBe(400);
    });
  });

  describe('dns-persist-01 (draft-ietf-acme-dns-persist)', () => {
    it('is offered only where the profile enables it, with the issuer-domain-names and no token', async () => {
      const c = await account(defaultDirectory);
      const onDefault = await c.post((await c.directory()).newOrder, {
        identifiers: [{ type: 'dns', value: 'offer.test' }],
      });
      const types = (await c.post(onDefault.json.authorizations[0], '')).json.challenges.map(
        (ch: { type: string }) => ch.type,
      );
      expect(types).not.toContain('dns-persist-01');
      const p = await account();
      const onPersist = await p.post((await p.directory()).newOrder, {
        identifiers: [{ type: 'dns', value: 'offer.test' }],
      });
      const challenge = (await p.post(onPersist.json.authorizations[0], '')).json.challenges.find(
        (ch: { type: string }) => ch.type === 'dns-persist-01',
      );
      // -02 3.1 names the list issuerDomainNames, -00/-01 issuer-domain-names; -01 3.1 adds accounturi.
      expect(challenge.issuerDomainNames).toEqual([ISSUER_NAME]);
      expect(challenge['issuer-domain-names']).toEqual([ISSUER_NAME]);
      expect(challenge.accounturi).toBe(p.kid);
      expect(challenge.token).toBeUndefined();
      // -02 3.2, 4.1: the directory of a profile offering it says what a record needs before any order.
      const origin = new URL(persistDirectory).origin;
      expect(((await p.directory()) as unknown as { meta: Record<string, unknown> }).meta).toMatchObject({
        issuerDomainNames: [ISSUER_NAME],
        accountHashPrefix: `${origin}/acme/account-hash/`,
      });
      const defaultMeta = ((await c.directory()) as unknown as { meta: Record<string, unknown> }).meta;
      expect(defaultMeta.issuerDomainNames).toBeUndefined();
      expect(defaultMeta.accountHashPrefix).toBeUndefined();
    });

    /** draft -02 4.1 item 3: the hashed accounturi a client computes from the directory. */
    async function hashedUri(c: TestAcmeClient, domain: string, thumbprint?: string) {
      const meta = ((await c.directory()) as unknown as { meta: { accountHashPrefix: string } }).meta;
      const name = Buffer.from(domain, 'ascii');
      const digest = createHash('sha256')
        .update(Buffer.from([name.length]))
        .update(name)
        .update(thumbprint ?? (await c.thumbprint()), 'ascii')
        .update(c.kid!, 'ascii')
        .digest('base64url');
      return `${meta.accountHashPrefix}sha-256/${digest}`;
    }

    it('-02 4.1 item 3: a record with the hashed accounturi validates (for its own name and for *), and issues', async () => {
      const c = await account();
      // Bound to another name, the hash names no one at hashed2.test.
      const elsewhere = await hashedUri(c, 'elsewhere.test');
      const { authz } = await persistOrder(
        c,
        'hashed2.test',
        () => `${ISSUER_NAME}; accounturi=${elsewhere}`,
      );
      expect(authz.status).toBe('invalid');
      expect(authz.challenges.find((ch: { type: string }) => ch.type === 'dns-persist-01').error.type).toBe(
        urn('unauthorized'),
      );
      const own = await hashedUri(c, 'hashed.test');
      const mine = await persistOrder(c, 'hashed.test', () => `${ISSUER_NAME}; accounturi=${own}`);
      expect(mine.authz.status).toBe('valid');
      const optOut = await hashedUri(c, '*');
      const done = await persistOrder(c, 'hashed3.test', () => `${ISSUER_NAME}; accounturi=${optOut}`);
      expect(done.authz.status).toBe('valid');
      const { pem } = await finalize(c, done.order, ['hashed3.test']);
      expect(pem).toContain('BEGIN CERTIFICATE');
    }, 60_000);

    it('-02 4.2: a hash over a key the account held before a key change still validates', async () => {
      const c = await account();
      const before = await c.thumbprint();
      const replacement = await TestAcmeClient.create(persistDirectory, system.ca);
      const url = (await c.directory()).keyChange;
      const rolled = await c.post(url, await replacement.innerJws(url, { account: c.kid, oldKey: c.jwk }));
      expect(rolled.status).toBe(200);
      replacement.kid = c.kid;
      const oldKeyUri = await hashedUri(replacement, 'rolled.test', before);
      const { authz } = await persistOrder(
        replacement,
        'rolled.test',
        () => `${ISSUER_NAME}; accounturi=${oldKeyUri}`,
      );
      expect(authz.status).toBe('valid');
      const { rows } = await db.query(
        'SELECT jwk_thumbprint, prior_thumbprints FROM protocol_frontends.acme_accounts WHERE id = $1',
        [c.kid!.split('/').pop()],
      );
      expect(rows).toEqual([{ jwk_thumbprint: await replacement.thumbprint(), prior_thumbprints: [before] }]);
    }, 60_000);

    it('-02 4.1 item 3: a hashed accounturi with an algorithm this CA does not accept is malformed', async () => {
      const c = await account();
      const meta = ((await c.directory()) as unknown as { meta: { accountHashPrefix: string } }).meta;
      const { authz } = await persistOrder(
        c,
        'sha512.test',
        () => `${ISSUER_NAME}; accounturi=${meta.accountHashPrefix}sha-512/AAAA`,
      );
      expect(authz.status).toBe('invalid');
      expect(authz.challenges.find((ch: { type: string }) => ch.type === 'dns-persist-01').error.type).toBe(
        urn('malformed'),
      );
    }, 60_000);

    it('validates a standing record naming this CA and the account, and issues', async () => {
      const c = await account();
      const { order, authz } = await persistOrder(
        c,
        'good.test',
        (kid) => `${ISSUER_NAME}; accounturi=${kid}`,
      );
      expect(authz.status).toBe('valid');
      const { pem } = await finalize(c, order, ['good.test']);
      expect(pem).toContain('BEGIN CERTIFICATE');
    }, 60_000);

    it('MUST: a record whose accounturi names another account does not validate (unauthorized)', async () => {
      const other = await account();
      const c = await account();
      const { authz } = await persistOrder(
        c,
        'wrong-account.test',
        () => `${ISSUER_NAME}; accounturi=${other.kid}`,
      );
      expect(authz.status).toBe('invalid');
      expect(authz.challenges.find((ch: { type: string }) => ch.type === 'dns-persist-01').error.type).toBe(
        urn('unauthorized'),
      );
    }, 60_000);

    it("MUST: a record naming another CA's issuer domain name does not validate (incorrectResponse)", async () => {
      const c = await account();
      const { authz } = await persistOrder(
        c,
        'wrong-issuer.test',
        (kid) => `other-ca.example; accounturi=${kid}`,
      );
      expect(authz.status).toBe('invalid');
      expect(authz.challenges.find((ch: { type: string }) => ch.type === 'dns-persist-01').error.type).toBe(
        urn('incorrectResponse'),
      );
    }, 60_000);

    it('MUST NOT: an authorization validated by a record with persistUntil does not outlive it, nor does an order relying on it (-02 4.1 item 5: no issuance on it after that time)', async () => {
      const c = await account();
      const until = Math.floor(Date.now() / 1000) + 3600;
      const { order, authz } = await persistOrder(
        c,
        'until.test',
        (kid) => `${ISSUER_NAME}; accounturi=${kid}; persistUntil=${until}`,
      );
      expect(authz.status).toBe('valid');
      expect(Date.parse(authz.expires)).toBeLessThanOrEqual(until * 1000);
      expect(Date.parse(authz.expires)).toBeGreaterThan(Date.now() + 3_000_000);
      // Created for 7 days, the order now ends by persistUntil too.
      expect(Date.parse(order.json.expires)).toBeGreaterThan(until * 1000);
      const polled = await c.post(order.headers.location as string, '');
      expect(polled.json.status).toBe('ready');
      expect(Date.parse(polled.json.expires)).toBeLessThanOrEqual(until * 1000);
    }, 60_000);

    it('MUST NOT: an order waiting for an enrollment approval is not issued on a validation past its persistUntil (-02 4.1 item 5): the approval ends with the order', async () => {
      expect(
        (
          await api('POST', '/api/v1/profiles', {
            id: 'persist-held',
            name: 'dns-persist-01 held for approval',
            requires_approval: true,
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await api('POST', '/api/v1/admin/acme/profiles', {
            id: 'persist-held',
            dns_persist_01: true,
            caa_identities: [ISSUER_NAME],
            certificate_profile_id: 'persist-held',
          })
        ).status,
      ).toBe(201);
      const c = await account(
        `${system.services['protocol-frontends'].url}/acme/profile/persist-held/directory`,
      );
      const until = Math.floor(Date.now() / 1000) + 3600;
      const { order, authz } = await persistOrder(
        c,
        'until-held.test',
        (kid) => `${ISSUER_NAME}; accounturi=${kid}; persistUntil=${until}`,
      );
      expect(authz.status).toBe('valid');
      const orderUrl = order.headers.location as string;
      await pollUntil(c, orderUrl, (json) => json.status === 'ready');
      const finalized = await c.post(order.json.finalize, { csr: csrFor({ dns: ['until-held.test'] }) });
      expect(finalized.json.status).toBe('processing');
      const approvals = (
        await api('GET', '/api/v1/approvals?approval_kind=cert_issuance&per_page=100')
      ).json() as { data: { enrollment?: { expires_at: string; reference: { order_id?: string } } }[] };
      const held = approvals.data.find((a) => a.enrollment?.reference.order_id === orderUrl.split('/').pop());
      // The profile checks CAA, which alone would give the approval 8 hours.
      expect(Date.parse(held!.enrollment!.expires_at)).toBeLessThanOrEqual(until * 1000);
      expect(Date.parse(held!.enrollment!.expires_at)).toBeGreaterThan(Date.now() + 3_000_000);
    }, 60_000);

    it('MUST NOT: a record past its persistUntil is not used', async () => {
      const c = await account();
      const past = Math.floor(Date.now() / 1000) - 60;
      const { authz } = await persistOrder(
        c,
        'expired.test',
        (kid) => `${ISSUER_NAME}; accounturi=${kid}; persistUntil=${past}`,
      );
      expect(authz.status).toBe('invalid');
      const error = authz.challenges.find((ch: { type: string }) => ch.type === 'dns-persist-01').error;
      expect(error.detail).toContain('persistUntil');
    }, 60_000);

    it('MUST: a wildcard validates only with policy=wildcard', async () => {
      const c = await account();
      const refused = await persistOrder(c, '*.nopolicy.test', (kid) => `${ISSUER_NAME}; accounturi=${kid}`);
      expect(refused.authz.status).toBe('invalid');
      expect(
        refused.authz.challenges.find((ch: { type: string }) => ch.type === 'dns-persist-01').error.detail,
      ).toContain('policy=wildcard');
      const allowed = await persistOrder(
        c,
        '*.policy.test',
        (kid) => `${ISSUER_NAME}; accounturi=${kid}; policy=wildcard`,
      );
      expect(allowed.authz.status).toBe('valid');
      const { pem } = await finalize(c, allowed.order, ['*.policy.test']);
      expect(new X509Certificate(pem).subjectAltName).toBe('DNS:*.policy.test');
    }, 60_000);
  });

  describe('dns-persist-01 subdomain scope (draft-ietf-acme-dns-persist-02 sections 5 and 6)', () => {
    const persistError = (authz: {
      challenges: { type: string; error?: { type: string; detail: string } }[];
    }) => authz.challenges.find((ch) => ch.type === 'dns-persist-01')?.error;

    /** Orders `names` and answers each dns-persist-01 challenge without publishing any record. */
    async function orderAnswered(c: TestAcmeClient, names: string[]) {
      const created = await c.post((await c.directory()).newOrder, {
        identifiers: names.map((value) => ({ type: 'dns', value })),
      });
      expect(created.status).toBe(201);
      const authzs = [];
      for (const authzUrl of created.json.authorizations as string[]) {
        const authz = (await c.post(authzUrl, '')).json;
        const challenge = authz.challenges.find((ch: { type: string }) => ch.type === 'dns-persist-01');
        expect((await c.post(challenge.url, {})).status).toBe(200);
        authzs.push((await pollUntil(c, authzUrl, (json) => json.status !== 'pending')).json);
      }
      return { order: created, authzs };
    }

    it('6.2: a record with policy=wildcard at an ancestor validates a subdomain and a wildcard under it, and issues', async () => {
      const c = await account();
      await setTxtRecords(bind, 'test', '_validation-persist.scope.test', [
        `${ISSUER_NAME}; accounturi=${c.kid}; policy=wildcard`,
      ]);
      const { order, authzs } = await orderAnswered(c, ['app.dept.scope.test', '*.web.scope.test']);
      expect(authzs.map((a) => a.status)).toEqual(['valid', 'valid']);
      const { pem } = await finalize(c, order, ['app.dept.scope.test', '*.web.scope.test']);
      expect(new X509Certificate(pem).subjectAltName).toBe('DNS:app.dept.scope.test, DNS:*.web.scope.test');
    }, 60_000);

    it('6.2: without policy=wildcard an ancestor record MUST NOT validate a subdomain (unauthorized)', async () => {
      const c = await account();
      await setTxtRecords(bind, 'test', '_validation-persist.noscope.test', [
        `${ISSUER_NAME}; accounturi=${c.kid}`,
      ]);
      const { authzs } = await orderAnswered(c, ['app.noscope.test']);
      expect(authzs[0].status).toBe('invalid');
      expect(persistError(authzs[0])).toMatchObject({
        type: urn('unauthorized'),
        detail: 'the _validation-persist.noscope.test record does not cover its subdomains (policy=wildcard)',
      });
      // The same record still validates its own name (4.1 item 4: the specific FQDN only).
      const own = await orderAnswered(c, ['noscope.test']);
      expect(own.authzs[0].status).toBe('valid');
    }, 60_000);

    it('6.1: a record at the top-level domain is never looked at, even with policy=wildcard (incorrectResponse)', async () => {
      const c = await account();
      await setTxtRecords(bind, 'test', '_validation-persist.test', [
        `${ISSUER_NAME}; accounturi=${c.kid}; policy=wildcard`,
      ]);
      const { authzs } = await orderAnswered(c, ['www.tld.test']);
      expect(authzs[0].status).toBe('invalid');
      expect(persistError(authzs[0])).toMatchObject({
        type: urn('incorrectResponse'),
        detail: `no record at _validation-persist.www.tld.test, _validation-persist.tld.test names ${ISSUER_NAME}`,
      });
    }, 60_000);
  });

  describe('renewals are versions of one inventory certificate', () => {
    async function inventoryOf(pem: string) {
      const serial = parseCertificates(pem)[0].serialNumber.toLowerCase().replace(/^0+/, '');
      const { rows } = await db.query(
        `SELECT c.id, c.source FROM issuance.certificates c
         JOIN issuance.certificate_versions v ON v.certificate_id = c.id
         WHERE ltrim(lower(v.serial_number), '0') = $1`,
        [serial],
      );
      return rows as { id: string; source: string }[];
    }

    it('RFC 9773 5: an order with replaces stores the new certificate as the next version; so does the same identifier set ordered again', async () => {
      const c = await account();
      const first = await persistOrder(c, 'renew.test', (kid) => `${ISSUER_NAME}; accounturi=${kid}`);
      const one = await finalize(c, first.order, ['renew.test']);
      const [recorded] = await inventoryOf(one.pem);
      expect(recorded.source).toBe('ACME');

      // RFC 9773 5: newOrder names the certificate it replaces; the authorization is reused.
      const second = await persistOrder(c, 'renew.test', () => 'unused', { replaces: renewalIdOf(one.pem) });
      const two = await finalize(c, second.order, ['renew.test']);
      expect(await inventoryOf(two.pem)).toEqual([recorded]);

      // The replaced certificate's renewal information: nothing left to renew.
      const info = await exchange(
        'GET',
        `${system.services['protocol-frontends'].url}/acme/renewal-info/${renewalIdOf(one.pem)}`,
        system.ca,
      );
      expect(new Date(info.json.suggestedWindow.end).getTime()).toBe(
        parseCertificates(one.pem)[0].notAfter.getTime(),
      );

      // The same identifiers ordered again by the account, without replaces: the next version too.
      const third = await persistOrder(c, 'renew.test', () => 'unused');
      const three = await finalize(c, third.order, ['renew.test']);
      expect(await inventoryOf(three.pem)).toEqual([recorded]);
      const versions = await db.query(
        'SELECT count(*)::int AS n FROM issuance.certificate_versions WHERE certificate_id = $1',
        [recorded.id],
      );
      expect(versions.rows[0].n).toBe(3);
      const current = await api('GET', `/api/v1/certificates/${recorded.id}`);
      expect(current.json()).toMatchObject({ source: 'ACME' });
    }, 90_000);
  });

  it('the inventory import as a version: version_of needs certificate_pem (400) and an existing certificate (404)', async () => {
    const withoutPem = await api('POST', '/api/v1/certificates', {
      version_of: 'mc-absent',
      common_name: 'x.test',
    });
    expect(withoutPem.status).toBe(400);
    const absent = await api('POST', '/api/v1/certificates', {
      version_of: 'mc-absent',
      certificate_pem: system.ca,
    });
    expect(absent.status).toBe(404);
  });

  describe('EAB keys bound to a profile', () => {
    async function eabBinding(key: AcmeEabKeyCreated, url: string, jwk: JWK) {
      const jws = await new FlattenedSign(new TextEncoder().encode(JSON.stringify(jwk)))
        .setProtectedHeader({ alg: 'HS256', kid: key.id, url })
        .sign(Buffer.from(key.hmac_key, 'base64url'));
      return { protected: jws.protected!, payload: jws.payload, signature: jws.signature };
    }

    it('a key for profile persist binds no account through default, and its account orders only under persist', async () => {
      expect((await api('POST', '/api/v1/admin/acme/eab-keys', { profile_id: 'nope' })).status).toBe(404);
      const created = await api('POST', '/api/v1/admin/acme/eab-keys', { profile_id: 'persist' });
      expect(created.status).toBe(201);
      const key = created.json() as AcmeEabKeyCreated;
      expect(key.profile_id).toBe('persist');

      const onDefault = await TestAcmeClient.create(defaultDirectory, system.ca);
      const defaultUrl = (await onDefault.directory()).newAccount;
      const refused = await onDefault.post(
        defaultUrl,
        {
          termsOfServiceAgreed: true,
          externalAccountBinding: await eabBinding(key, defaultUrl, onDefault.jwk),
        },
        { useJwk: true },
      );
      expect(refused.json.type).toBe(urn('unauthorized'));
      expect(refused.json.detail).toContain('profile persist');

      const onPersist = await TestAcmeClient.create(persistDirectory, system.ca);
      const persistUrl = (await onPersist.directory()).newAccount;
      const bound = await onPersist.post(
        persistUrl,
        {
          termsOfServiceAgreed: true,
          externalAccountBinding: await eabBinding(key, persistUrl, onPersist.jwk),
        },
        { useJwk: true },
      );
      expect(bound.status).toBe(201);
      onPersist.kid = bound.headers.location as string;
      const elsewhere = await onPersist.post((await onPersist.directory()).newOrder, {
        identifiers: [{ type: 'dns', value: 'eab.test' }],
        profile: 'default',
      });
      expect(elsewhere.json.type).toBe(urn('unauthorized'));
      const here = await onPersist.post((await onPersist.directory()).newOrder, {
        identifiers: [{ type: 'dns', value: 'eab.test' }],
      });
      expect(here.status).toBe(201);
    });
  });
});
