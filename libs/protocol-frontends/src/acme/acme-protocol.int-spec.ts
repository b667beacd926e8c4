import { execFileSync } from 'node:child_process';
import { KeyObject, X509Certificate } from 'node:crypto';
import {
  eventually,
  freePort,
  metricValue,
  scrapeMetrics,
  ServiceProcess,
  startServiceProcess,
  startTestSystem,
  testNatsUrl,
  TestSystem,
} from '@certlane/testing';
import { parseCertificates } from '@certlane/pki';
import { NatsBus } from '@certlane/platform';
import { Client } from 'pg';
import { csrFor, exchange, Http01Responder, TestAcmeClient } from './testing/acme-test-client';

const PROBLEM = 'application/problem+json';
const urn = (type: string) => `urn:ietf:params:acme:error:${type}`;

/**
 * The ACME server over the wire, rule by rule (RFC 8555), with a plain client that can break one
 * rule at a time, against two replicas of protocol-frontends on one database and NATS namespace.
 */
describe('ACME protocol rules (RFC 8555) over HTTP', () => {
  let system: TestSystem;
  let second: ServiceProcess;
  let responder: Http01Responder;
  let directoryUrl: string;
  let secondDirectoryUrl: string;
  let db: Client;
  let bus: NatsBus;

  beforeAll(async () => {
    const http01Port = await freePort();
    system = await startTestSystem('acmeproto', ['issuance', 'protocol-frontends'], {
      SERVICE_ACME_HTTP01_PORT: String(http01Port),
      // Low, so the limit test reaches it; every other test uses fewer orders per account.
      SERVICE_ACME_NEW_ORDERS_PER_HOUR: '3',
      // Short, so the slow-validation test passes it quickly.
      SERVICE_ACME_CHALLENGE_ANSWER_WAIT_MS: '1000',
    });
    second = await startServiceProcess('protocol-frontends', system.env, { ca: system.ca });
    responder = await Http01Responder.start(http01Port);
    directoryUrl = `${system.services['protocol-frontends'].url}/acme/directory`;
    secondDirectoryUrl = `${second.url}/acme/directory`;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'acmeproto-test',
      requestTimeoutMs: 30_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
  }, 120_000);

  afterAll(async () => {
    await bus?.close();
    await db?.end();
    await responder?.stop();
    await second?.stop();
    await system?.stop();
  });

  const client = () => TestAcmeClient.create(directoryUrl, system.ca);

  /** Polls a resource by POST-as-GET until `done` holds (the validation runs in the background). */
  async function pollUntil(c: TestAcmeClient, url: string, done: (json: { status: string }) => boolean) {
    for (let i = 0; i < 100; i++) {
      const answer = await c.post(url, '');
      if (done(answer.json)) return answer;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${url} never reached the expected state`);
  }

  async function order(c: TestAcmeClient, identifiers: { type: string; value: string }[]) {
    const answer = await c.post((await c.directory()).newOrder, { identifiers });
    expect(answer.status).toBe(201);
    return answer;
  }

  async function validateAll(c: TestAcmeClient, orderJson: { authorizations: string[] }, wrong = false) {
    for (const authzUrl of orderJson.authorizations) {
      const authz = (await c.post(authzUrl, '')).json;
      const challenge = authz.challenges.find((ch: { type: string }) => ch.type === 'http-01');
      responder.answers.set(
        challenge.token,
        wrong ? 'not-the-key-authorization' : await c.keyAuthorization(challenge.token),
      );
      const started = await c.post(challenge.url, {});
      expect(started.status).toBe(200);
      expect(started.headers.link).toContain(`<${authzUrl}>;rel="up"`);
      await pollUntil(c, authzUrl, (json) => json.status !== 'pending');
    }
  }

  /** A registered client's certificate for `names`: ordered, validated, finalized and downloaded. */
  async function certificateFor(c: TestAcmeClient, names: string[]) {
    const created = await order(
      c,
      names.map((value) => ({ type: 'dns', value })),
    );
    await validateAll(c, created.json);
    await pollUntil(c, created.headers.location as string, (json) => json.status === 'ready');
    const finalized = await c.post(created.json.finalize, { csr: csrFor({ dns: names }) });
    const pem = (await c.post(finalized.json.certificate, '')).text;
    const der = Buffer.from(pem.split('-----')[2].replace(/\s+/g, ''), 'base64').toString('base64url');
    return {
      pem,
      der,
      orderId: created.headers.location!.toString().split('/').pop()!,
      certificateUrl: finalized.json.certificate as string,
    };
  }

  it('serves the directory with meta and profiles', async () => {
    const answer = await exchange('GET', directoryUrl, system.ca);
    expect(answer.status).toBe(200);
    const base = directoryUrl.replace(/directory$/, '');
    expect(answer.json).toEqual({
      newNonce: `${base}new-nonce`,
      newAccount: `${base}new-account`,
      newOrder: `${base}new-order`,
      revokeCert: `${base}revoke-cert`,
      keyChange: `${base}key-change`,
      renewalInfo: `${base}renewal-info`,
      meta: { externalAccountRequired: false, profiles: { default: expect.any(String) } },
    });
    // Nonces come from newNonce and POST answers (RFC 8555 7.2); a directory carrying one breaks
    // Ruby's acme-client 2.0.9 (Debian's), as Boulder's directory carries none.
    expect(answer.headers['replay-nonce']).toBeUndefined();
    const profiled = await exchange(
      'GET',
      directoryUrl.replace('/acme/', '/acme/profile/default/'),
      system.ca,
    );
    expect(profiled.json.newOrder).toBe(`${base}profile/default/new-order`);
    expect(
      (await exchange('GET', directoryUrl.replace('/acme/', '/acme/profile/nope/'), system.ca)).status,
    ).toBe(404);
  });

  it('RFC 8555 7.2: newNonce answers HEAD 200 and GET 204 with Replay-Nonce and Cache-Control no-store', async () => {
    const url = (await (await client()).directory()).newNonce;
    const head = await exchange('HEAD', url, system.ca);
    const get = await exchange('GET', url, system.ca);
    expect([head.status, get.status]).toEqual([200, 204]);
    for (const answer of [head, get]) {
      expect(answer.headers['replay-nonce']).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(answer.headers['cache-control']).toBe('no-store');
    }
    expect(head.headers['replay-nonce']).not.toBe(get.headers['replay-nonce']);
  });

  it('RFC 8555 6.3: the directory and newNonce also answer POST-as-GET, authenticated as any POST', async () => {
    const c = await client();
    const { newNonce } = await c.directory();
    // Before an account exists (signed with the jwk), and after (signed by the account).
    const byKey = await c.post(directoryUrl, '', { useJwk: true });
    expect(byKey.status).toBe(200);
    expect(byKey.json.newOrder).toBe((await c.directory()).newOrder);
    await c.register();
    const nonce = await c.post(newNonce, '');
    expect(nonce.status).toBe(200);
    expect(nonce.headers['replay-nonce']).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(nonce.headers['cache-control']).toBe('no-store');
    expect((await c.post(directoryUrl, '')).json.meta).toMatchObject({ externalAccountRequired: false });
    // Still a JWS: its nonce is spent once, its url checked, its payload empty.
    const signed = await c.sign(directoryUrl, '');
    expect((await exchange('POST', directoryUrl, system.ca, signed)).status).toBe(200);
    const replayed = await exchange('POST', directoryUrl, system.ca, signed);
    expect([replayed.status, replayed.json.type]).toEqual([400, 'urn:ietf:params:acme:error:badNonce']);
    const elsewhere = await c.post(newNonce, '', { url: directoryUrl });
    expect(elsewhere.json.type).toBe('urn:ietf:params:acme:error:unauthorized');
    const withPayload = await c.post(directoryUrl, {});
    expect([withPayload.status, withPayload.json.type]).toEqual([
      400,
      'urn:ietf:params:acme:error:malformed',
    ]);
    const put = await exchange('PUT', directoryUrl, system.ca);
    expect([put.status, put.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
  });

  it('RFC 9110 9.1 and 9.3.2: the directory and renewalInfo, which answer GET, answer HEAD as GET without a body', async () => {
    const get = await exchange('GET', directoryUrl, system.ca);
    const head = await exchange('HEAD', directoryUrl, system.ca);
    expect([head.status, head.text]).toEqual([200, '']);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers.link).toEqual(get.headers.link);
    // An unknown certificate: the same 404 problem as a GET gets, not 405.
    const renewalInfo = `${(await (await client()).directory()).renewalInfo}/AAAA.AAAA`;
    const info = await exchange('GET', renewalInfo, system.ca);
    const infoHead = await exchange('HEAD', renewalInfo, system.ca);
    expect([info.status, infoHead.status, infoHead.text]).toEqual([404, 404, '']);
    expect(infoHead.headers['content-type']).toBe(PROBLEM);
  });

  it('RFC 8555 6.5: a request with a used nonce gets badNonce, with a fresh nonce that works', async () => {
    const c = await client();
    const url = (await c.directory()).newAccount;
    const nonce = await c.nonce();
    expect((await c.post(url, { termsOfServiceAgreed: true }, { nonce, useJwk: true })).status).toBe(201);
    const replay = await c.post(url, { termsOfServiceAgreed: true }, { nonce, useJwk: true });
    expect(replay.status).toBe(400);
    expect(replay.headers['content-type']).toContain(PROBLEM);
    expect(replay.json.type).toBe(urn('badNonce'));
    const fresh = replay.headers['replay-nonce'] as string;
    expect(fresh).toBeTruthy();
    expect((await c.post(url, { termsOfServiceAgreed: true }, { nonce: fresh, useJwk: true })).status).toBe(
      200,
    );
  });

  it('RFC 8555 6.5: a nonce from one replica is accepted once by the other', async () => {
    const c = await client();
    const nonce = await c.nonce();
    const otherNewAccount = (await exchange('GET', secondDirectoryUrl, system.ca)).json.newAccount;
    const first = await c.post(otherNewAccount, { termsOfServiceAgreed: true }, { nonce, useJwk: true });
    expect(first.status).toBe(201);
    const again = await c.post((await c.directory()).newAccount, {}, { nonce, useJwk: true });
    expect(again.json.type).toBe(urn('badNonce'));
  });

  it('RFC 8555 6.2: a POST that is not application/jose+json is refused with 415', async () => {
    const c = await client();
    const url = (await c.directory()).newAccount;
    const answer = await exchange(
      'POST',
      url,
      system.ca,
      await c.sign(url, {}, { useJwk: true }),
      'application/json',
    );
    expect(answer.status).toBe(415);
    expect(answer.json.type).toBe(urn('malformed'));
  });

  it('RFC 8555 6.7: a body that is not JSON is answered with a malformed problem document', async () => {
    const url = (await (await client()).directory()).newAccount;
    const answer = await exchange('POST', url, system.ca, '{"protected": ');
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toContain(PROBLEM);
    expect(answer.json.type).toBe(urn('malformed'));
    expect(answer.headers['replay-nonce']).toBeTruthy();
  });

  it('RFC 8555 6.4: a url header that is not the request URL is unauthorized', async () => {
    const c = await client();
    const dir = await c.directory();
    const answer = await c.post(dir.newAccount, {}, { url: dir.newOrder, useJwk: true });
    expect(answer.status).toBe(403);
    expect(answer.json.type).toBe(urn('unauthorized'));
  });

  it('RFC 8555 6.2: jwk where kid is required is malformed', async () => {
    const c = await client();
    await c.register();
    const answer = await c.post(
      (await c.directory()).newOrder,
      { identifiers: [{ type: 'dns', value: 'a.localhost' }] },
      { useJwk: true },
    );
    expect(answer.status).toBe(400);
    expect(answer.json.type).toBe(urn('malformed'));
  });

  it('RFC 8555 7.3.1: onlyReturnExisting for an unknown key, and an unknown kid, are accountDoesNotExist', async () => {
    const c = await client();
    const dir = await c.directory();
    const lookup = await c.post(dir.newAccount, { onlyReturnExisting: true }, { useJwk: true });
    expect(lookup.status).toBe(400);
    expect(lookup.json.type).toBe(urn('accountDoesNotExist'));
    const unknown = await c.post(
      dir.newOrder,
      { identifiers: [{ type: 'dns', value: 'a.localhost' }] },
      {
        kid: dir.newAccount.replace('new-account', 'account/AAAAAAAAAAAAAAAAAAAAAA'),
      },
    );
    expect(unknown.json.type).toBe(urn('accountDoesNotExist'));
  });

  it('RFC 8555 7.3.1: a second newAccount with the same key answers 200 with the same account', async () => {
    const c = await client();
    const first = await c.register();
    const again = await c.post(
      (await c.directory()).newAccount,
      { termsOfServiceAgreed: true },
      { useJwk: true },
    );
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.headers.location).toBe(first.headers.location);
    const existing = await c.post(
      (await c.directory()).newAccount,
      { onlyReturnExisting: true },
      { useJwk: true },
    );
    expect(existing.headers.location).toBe(first.headers.location);
  });

  it('RFC 8555 7.3.6: after deactivation, requests signed by the account are 401 unauthorized, newAccount with its key too', async () => {
    const c = await client();
    await c.register();
    const deactivated = await c.post(c.kid!, { status: 'deactivated' });
    expect(deactivated.json.status).toBe('deactivated');
    const refused = await c.post((await c.directory()).newOrder, {
      identifiers: [{ type: 'dns', value: 'a.localhost' }],
    });
    expect([refused.status, refused.json.type]).toEqual([401, urn('unauthorized')]);
    for (const payload of [{ termsOfServiceAgreed: true }, { onlyReturnExisting: true }]) {
      const again = await c.post((await c.directory()).newAccount, payload, { useJwk: true });
      expect([again.status, again.json.type]).toEqual([401, urn('unauthorized')]);
      expect(again.headers.location).toBeUndefined();
    }
  });

  it('RFC 8555 7.3.1: newAccount with a key that has an account ignores every field of the request', async () => {
    const c = await client();
    const first = await c.register();
    const again = await c.post(
      (await c.directory()).newAccount,
      { contact: ['tel:+15555550100'], termsOfServiceAgreed: 'yes' },
      { useJwk: true },
    );
    expect(again.status).toBe(200);
    expect(again.headers.location).toBe(first.headers.location);
  });

  it('RFC 8555 7.3.2: an update carrying the account\'s "status": "valid" is applied, the status ignored', async () => {
    const c = await client();
    await c.register();
    const updated = await c.post(c.kid!, { status: 'valid', contact: ['mailto:kept@example.com'] });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ status: 'valid', contact: ['mailto:kept@example.com'] });
  });

  it('RFC 8555 7.1.2.1: the orders list leaves invalid orders out and links the next page (rel="next")', async () => {
    const c = await client();
    await c.register();
    const created = await order(c, [{ type: 'dns', value: 'listed.localhost' }]);
    const accountId = c.kid!.split('/').pop()!;
    const ownId = (created.headers.location as string).split('/').pop()!;
    // 1,000 more, older, stored directly (the per-account order limit would refuse them over the
    // wire), and one invalid order.
    await db.query(
      `INSERT INTO protocol_frontends.acme_orders (id, account_id, profile_id, identifiers, expires_at, created_at, status)
       SELECT 'bulk' || lpad(n::text, 6, '0'), $1, 'default', '[{"type":"dns","value":"bulk.localhost"}]',
              now() + interval '1 day', now() - n * interval '1 second', CASE WHEN n = 1 THEN 'invalid' ELSE 'pending' END
         FROM generate_series(1, 1001) AS n`,
      [accountId],
    );
    const account = await c.post(c.kid!, '');
    const firstPage = await c.post(account.json.orders, '');
    expect(firstPage.json.orders).toHaveLength(1000);
    expect(firstPage.json.orders[0]).toContain(ownId);
    const links = (answer: { headers: Record<string, unknown> }) =>
      [answer.headers.link].flat().flatMap((l) => String(l).split(/,\s*(?=<)/));
    const next = links(firstPage).find((l) => l.endsWith('rel="next"'))!;
    expect(next).toBeTruthy();
    const nextUrl = /^<([^>]+)>/.exec(String(next))![1];
    const secondPage = await c.post(nextUrl, '', { url: nextUrl });
    expect(secondPage.status).toBe(200);
    // 1,001 valid-or-pending orders in all; the invalid one (bulk000001) is in neither page.
    expect(secondPage.json.orders).toEqual([expect.stringContaining('bulk001001')]);
    expect(
      [...firstPage.json.orders, ...secondPage.json.orders].some((u: string) => u.endsWith('bulk000001')),
    ).toBe(false);
    expect(links(secondPage).some((l) => l.endsWith('rel="next"'))).toBe(false);
  });

  it('records audit events (spec 6.1) with the account as actor, in the transaction of each change', async () => {
    const c = await client();
    await c.register();
    const created = await order(c, [{ type: 'dns', value: 'audit.localhost' }]);
    await c.post(c.kid!, { contact: ['mailto:new@example.com'] });
    await c.post(c.kid!, { status: 'deactivated' });
    const accountId = c.kid!.split('/').pop()!;
    const { rows } = await db.query(
      `SELECT envelope->'data' AS data FROM protocol_frontends.outbox
       WHERE subject = 'protocol-frontends.v1.audit.recorded' AND envelope->'data'->>'actor_id' = $1 ORDER BY seq`,
      [`acme-account:${accountId}`],
    );
    expect(
      rows.map((r: { data: { action: string; resource_id: string } }) => [r.data.action, r.data.resource_id]),
    ).toEqual([
      ['acme.account_created', accountId],
      ['acme.order_created', (created.headers.location as string).split('/').pop()],
      ['acme.account_updated', accountId],
      ['acme.account_deactivated', accountId],
    ]);
    expect(rows[2].data.details).toEqual({ contact: ['mailto:new@example.com'] });
  });

  it('RFC 8555 6.3: resources other than the directory and newNonce refuse GET (POST-as-GET only)', async () => {
    const c = await client();
    await c.register();
    const created = await order(c, [{ type: 'dns', value: 'get.localhost' }]);
    const answer = await exchange('GET', created.headers.location as string, system.ca);
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
    expect(answer.headers['content-type']).toContain(PROBLEM);
  });

  it('RFC 8555 7.5.2: a deactivated authorization makes its pending order invalid and cannot be reactivated', async () => {
    const c = await client();
    await c.register();
    const created = await order(c, [{ type: 'dns', value: 'deactivate.localhost' }]);
    const authzUrl = created.json.authorizations[0];
    const deactivated = await c.post(authzUrl, { status: 'deactivated' });
    expect(deactivated.json.status).toBe('deactivated');
    expect((await c.post(created.headers.location as string, '')).json.status).toBe('invalid');
    const again = await c.post(authzUrl, { status: 'deactivated' });
    expect(again.json.type).toBe(urn('malformed'));
    const other = await c.post(authzUrl, { status: 'valid' });
    expect(other.json.type).toBe(urn('malformed'));
  });

  it('RFC 8555 7.3.2: an account cannot read or change another account', async () => {
    const a = await client();
    const b = await client();
    await a.register();
    await b.register();
    const answer = await b.post(a.kid!, '');
    expect(answer.json.type).toBe(urn('unauthorized'));
  });

  it('RFC 8555 7.3.5: key rollover: the new key signs from then on, the old one no longer verifies', async () => {
    const c = await client();
    await c.register();
    const replacement = await client();
    const url = (await c.directory()).keyChange;
    const rolled = await c.post(url, await replacement.innerJws(url, { account: c.kid, oldKey: c.jwk }));
    expect(rolled.status).toBe(200);
    expect(rolled.headers.location).toBe(c.kid);
    const withOldKey = await c.post(c.kid!, '');
    expect(withOldKey.json.type).toBe(urn('malformed'));
    replacement.kid = c.kid;
    expect((await replacement.post(c.kid!, '')).status).toBe(200);
    // The account is found by its new key.
    const found = await replacement.post(
      (await c.directory()).newAccount,
      { onlyReturnExisting: true },
      { useJwk: true },
    );
    expect(found.headers.location).toBe(c.kid);
  });

  it('RFC 8555 7.3.5: a rollover to a key another account holds is 409 with that account', async () => {
    const holder = await client();
    await holder.register();
    const c = await client();
    await c.register();
    const url = (await c.directory()).keyChange;
    const answer = await c.post(url, await holder.innerJws(url, { account: c.kid, oldKey: c.jwk }));
    expect(answer.status).toBe(409);
    expect(answer.headers['content-type']).toContain(PROBLEM);
    expect(answer.headers.location).toBe(holder.kid);
  });

  it('RFC 8555 7.3.5: an inner JWS whose url differs from the outer one is refused', async () => {
    const c = await client();
    await c.register();
    const replacement = await client();
    const dir = await c.directory();
    const answer = await c.post(
      dir.keyChange,
      await replacement.innerJws(dir.newOrder, { account: c.kid, oldKey: c.jwk }),
    );
    expect(answer.status).toBe(400);
    expect(answer.json.type).toBe(urn('malformed'));
    expect((await c.post(c.kid!, '')).status).toBe(200);
  });

  it('RFC 4343 and RFC 3986 3.1: an upper-case DNS name is ordered in lower case, a MAILTO: contact is mailto:', async () => {
    const c = await client();
    const registered = await c.post(
      (await c.directory()).newAccount,
      { termsOfServiceAgreed: true, contact: ['MAILTO:Ops@Example.com'] },
      { useJwk: true },
    );
    expect([registered.status, registered.json.contact]).toEqual([201, ['mailto:Ops@Example.com']]);
    c.kid = registered.headers.location as string;
    const created = await order(c, [
      { type: 'dns', value: 'Upper.Localhost' },
      { type: 'dns', value: 'upper.localhost' },
    ]);
    expect(created.json.identifiers).toEqual([{ type: 'dns', value: 'upper.localhost' }]);
    const authz = (await c.post(created.json.authorizations[0], '')).json;
    expect(authz.identifier).toEqual({ type: 'dns', value: 'upper.localhost' });
  });

  it('RFC 8555 6.7.1: each refused identifier is a subproblem naming it, an unsupported type too', async () => {
    const c = await client();
    await c.register();
    const refused = await c.post((await c.directory()).newOrder, {
      identifiers: [
        { type: 'dns', value: 'a_b.localhost' },
        { type: 'email', value: 'ops@example.com' },
      ],
    });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({
      type: 'urn:ietf:params:acme:error:compound',
      subproblems: [
        {
          type: 'urn:ietf:params:acme:error:rejectedIdentifier',
          identifier: { type: 'dns', value: 'a_b.localhost' },
        },
        {
          type: 'urn:ietf:params:acme:error:unsupportedIdentifier',
          identifier: { type: 'email', value: 'ops@example.com' },
        },
      ],
    });
  });

  it('RFC 8555 7.1.3: a wildcard is never offered http-01', async () => {
    const c = await client();
    await c.register();
    const answer = await order(c, [{ type: 'dns', value: '*.wild.localhost' }]);
    const authz = (await c.post(answer.json.authorizations[0], '')).json;
    expect(authz.challenges.map((ch: { type: string }) => ch.type)).toEqual(['dns-01']);
  });

  it('RFC 8738 7: an IP identifier is never offered dns-01', async () => {
    const c = await client();
    await c.register();
    const answer = await order(c, [{ type: 'ip', value: '127.0.0.2' }]);
    const authz = (await c.post(answer.json.authorizations[0], '')).json;
    expect(authz.challenges.map((ch: { type: string }) => ch.type)).toEqual(['http-01', 'tls-alpn-01']);
  });

  it('orders dns and ip identifiers: finalize before ready is orderNotReady, a mismatched CSR is badCSR, then issues', async () => {
    const c = await client();
    await c.register();
    const identifiers = [
      { type: 'dns', value: 'flow.localhost' },
      { type: 'ip', value: '127.0.0.1' },
    ];
    const created = await order(c, identifiers);
    const orderUrl = created.headers.location as string;
    expect(created.json).toMatchObject({
      status: 'pending',
      identifiers: [
        { type: 'dns', value: 'flow.localhost' },
        { type: 'ip', value: '127.0.0.1' },
      ],
    });
    expect(created.json.authorizations).toHaveLength(2);

    // RFC 8555 7.4: finalize before the order is ready.
    const early = await c.post(created.json.finalize, {
      csr: csrFor({ dns: ['flow.localhost'], ip: ['127.0.0.1'] }),
    });
    expect(early.status).toBe(403);
    expect(early.json.type).toBe(urn('orderNotReady'));

    await validateAll(c, created.json);
    const ready = await pollUntil(c, orderUrl, (json) => json.status !== 'pending');
    expect(ready.json.status).toBe('ready');

    // RFC 8555 7.4: the CSR must name exactly the order's identifiers.
    const mismatched = await c.post(created.json.finalize, {
      csr: csrFor({ dns: ['flow.localhost', 'other.localhost'], ip: ['127.0.0.1'] }),
    });
    expect(mismatched.json.type).toBe(urn('badCSR'));
    const missing = await c.post(created.json.finalize, { csr: csrFor({ dns: ['flow.localhost'] }) });
    expect(missing.json.type).toBe(urn('badCSR'));

    const finalized = await c.post(created.json.finalize, {
      csr: csrFor({ cn: 'flow.localhost', dns: ['flow.localhost'], ip: ['127.0.0.1'] }),
    });
    expect(finalized.status).toBe(200);
    expect(finalized.json.status).toBe('valid');
    const download = await c.post(finalized.json.certificate, '');
    expect(download.headers['content-type']).toBe('application/pem-certificate-chain');
    expect(download.text.match(/-----BEGIN CERTIFICATE-----/g)!.length).toBeGreaterThanOrEqual(2);

    // RFC 9773: renewal information, unauthenticated, by <AKI>.<serial>.
    const leaf = parseCertificates(download.text)[0];
    const certId = `${leaf.decoded.authorityKeyIdentifier!.toString('base64url')}.${leaf.serialBytes.toString('base64url')}`;
    const info = await exchange('GET', `${(await c.directory()).renewalInfo}/${certId}`, system.ca);
    expect(info.status).toBe(200);
    expect(Number(info.headers['retry-after'])).toBeGreaterThan(0);
    const lifetime = leaf.notAfter.getTime() - leaf.notBefore.getTime();
    expect(new Date(info.json.suggestedWindow.start).getTime()).toBe(
      leaf.notBefore.getTime() + Math.floor((lifetime * 2) / 3),
    );
    expect(new Date(info.json.suggestedWindow.end).getTime()).toBeGreaterThan(
      new Date(info.json.suggestedWindow.start).getTime(),
    );
    const unknown = await exchange('GET', `${(await c.directory()).renewalInfo}/AAAA.AAAA`, system.ca);
    expect(unknown.status).toBe(404);

    // A second finalize of a valid order.
    const again = await c.post(created.json.finalize, {
      csr: csrFor({ dns: ['flow.localhost'], ip: ['127.0.0.1'] }),
    });
    expect(again.json.type).toBe(urn('orderNotReady'));

    // The account lists it; another order for the same names reuses the valid authorizations.
    const list = await c.post(`${c.kid}/orders`, '');
    expect(list.json.orders).toContain(orderUrl);
    // RFC 9773 5: the renewal names the certificate it replaces.
    const newOrderUrl = (await c.directory()).newOrder;
    const reuse = await c.post(newOrderUrl, { identifiers, replaces: certId });
    expect(reuse.status).toBe(201);
    expect(reuse.json.status).toBe('ready');
    // RFC 9773 5: "MUST reflect that field in the response and in subsequent requests".
    expect(reuse.json.replaces).toBe(certId);
    expect((await c.post(reuse.headers.location as string, '')).json.replaces).toBe(certId);
    const renewed = await c.post(reuse.json.finalize, {
      csr: csrFor({ dns: ['flow.localhost'], ip: ['127.0.0.1'] }),
    });
    expect(renewed.json.status).toBe('valid');
    const replacedTwice = await c.post(newOrderUrl, { identifiers, replaces: certId });
    expect(replacedTwice.status).toBe(409);
    expect(replacedTwice.json.type).toBe(urn('alreadyReplaced'));
    const garbage = await c.post(newOrderUrl, { identifiers, replaces: 'not-a-cert-id' });
    expect(garbage.json.type).toBe(urn('malformed'));
    const unrelated = await c.post(newOrderUrl, {
      identifiers: [{ type: 'dns', value: 'x.localhost' }],
      replaces: certId,
    });
    expect(unrelated.json.detail).toContain('shares no identifier');
  });

  it('RFC 8555 8.3: a wrong key authorization makes challenge, authorization and order invalid', async () => {
    const c = await client();
    await c.register();
    const created = await order(c, [{ type: 'dns', value: 'wrong.localhost' }]);
    await validateAll(c, created.json, true);
    const authz = (await c.post(created.json.authorizations[0], '')).json;
    expect(authz.status).toBe('invalid');
    // RFC 8555 7.1.4: an invalid authorization lists "the challenge that was attempted and failed".
    expect(authz.challenges).toEqual([
      expect.objectContaining({
        type: 'http-01',
        status: 'invalid',
        error: expect.objectContaining({ type: urn('incorrectResponse') }),
      }),
    ]);
    expect((await c.post(created.headers.location as string, '')).json.status).toBe('invalid');
    // The attempt is audited with its problem.
    const { rows } = await db.query(
      `SELECT envelope->'data' AS data FROM protocol_frontends.outbox
       WHERE envelope->'data'->>'action' = 'acme.challenge_failed' AND envelope->'data'->'details'->'identifier'->>'value' = $1`,
      ['wrong.localhost'],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].data.details).toMatchObject({
      type: 'http-01',
      error: { type: urn('incorrectResponse') },
    });
  });

  it('RFC 8555 8.3: http-01 follows a redirect on the validation port, and refuses one to another port', async () => {
    const c = await client();
    await c.register();
    const created = await order(c, [
      { type: 'dns', value: 'redirect.localhost' },
      { type: 'dns', value: 'badredirect.localhost' },
    ]);
    const challenges = [];
    for (const url of created.json.authorizations) {
      const authz = (await c.post(url, '')).json;
      challenges.push({
        url,
        name: authz.identifier.value,
        ch: authz.challenges.find((x: { type: string }) => x.type === 'http-01'),
      });
    }
    for (const { name, ch } of challenges) {
      if (name === 'redirect.localhost') {
        responder.redirects.set(ch.token, `/moved/${ch.token}`);
        responder.answers.set(`/moved/${ch.token}`, await c.keyAuthorization(ch.token));
      } else {
        responder.redirects.set(ch.token, `http://badredirect.localhost:1/${ch.token}`);
      }
      await c.post(ch.url, {});
    }
    const outcome: Record<
      string,
      { status: string; challenges: { type: string; error?: { type: string } }[] }
    > = {};
    for (const { url, name } of challenges)
      outcome[name] = (await pollUntil(c, url, (json) => json.status !== 'pending')).json as never;
    expect(outcome['redirect.localhost'].status).toBe('valid');
    expect(outcome['badredirect.localhost'].status).toBe('invalid');
    const failed = outcome['badredirect.localhost'].challenges.find((x) => x.type === 'http-01')!;
    expect(failed.error?.type).toBe(urn('unauthorized'));
  });

  it('RFC 8555 6.6: past the per-account order limit, counted across replicas, newOrder is rateLimited with Retry-After', async () => {
    const c = await client();
    await c.register();
    const otherNewOrder = (await exchange('GET', secondDirectoryUrl, system.ca)).json.newOrder;
    const identifiers = [{ type: 'dns', value: 'limit.localhost' }];
    expect((await c.post((await c.directory()).newOrder, { identifiers })).status).toBe(201);
    expect((await c.post(otherNewOrder, { identifiers })).status).toBe(201);
    expect((await c.post((await c.directory()).newOrder, { identifiers })).status).toBe(201);
    const refused = await c.post(otherNewOrder, { identifiers });
    expect(refused.status).toBe(429);
    expect(refused.json.type).toBe(urn('rateLimited'));
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
    expect(refused.headers['replay-nonce']).toBeTruthy();
    // Another account is not limited by it.
    const other = await client();
    await other.register();
    expect((await other.post((await other.directory()).newOrder, { identifiers })).status).toBe(201);
  });

  it('a dropped connection is retried before the challenge fails (by the sweep, on either replica)', async () => {
    const c = await client();
    await c.register();
    const created = await order(c, [{ type: 'dns', value: 'retry.localhost' }]);
    const authzUrl = created.json.authorizations[0];
    const pending = await c.post(authzUrl, '');
    // RFC 8555 7.5.1 (MAY): a pending authorization suggests a polling interval; nothing is being
    // validated yet, so 1 s.
    expect(pending.headers['retry-after']).toBe('1');
    const challenge = pending.json.challenges.find((x: { type: string }) => x.type === 'http-01');
    responder.answers.set(challenge.token, await c.keyAuthorization(challenge.token));
    responder.dropOnce.add(challenge.token);
    // The first attempt failed and a retry follows: the answer says processing. RFC 8555 8.2: the
    // retry state is shown, the failed attempt's problem as `error` and Retry-After.
    const answered = await c.post(challenge.url, {});
    expect(answered.json).toMatchObject({ status: 'processing', error: { type: urn('connection') } });
    expect(Number(answered.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const polled = await c.post(challenge.url, '');
    expect(polled.json).toMatchObject({ status: 'processing', error: { type: urn('connection') } });
    expect(Number(polled.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The authorization, pending while its challenge is retried, says the retry's time too.
    const retrying = await c.post(authzUrl, '');
    expect(retrying.json.status).toBe('pending');
    expect(Number(retrying.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(retrying.headers['retry-after'])).toBeLessThanOrEqual(
      Number(polled.headers['retry-after']),
    );
    // The retry waits 2 s, then for a sweep (every 10 s): poll up to 30 s.
    let status = 'pending';
    for (let i = 0; i < 150 && status === 'pending'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await c.post(authzUrl, '')).json.status;
    }
    expect(status).toBe('valid');
    expect(responder.fetches.get(challenge.token)).toBe(2);
    // Valid, it no longer carries the problem of the attempt that was retried.
    const validated = await c.post(challenge.url, '');
    expect(validated.json.status).toBe('valid');
    expect(validated.json.error).toBeUndefined();
    expect(validated.headers['retry-after']).toBeUndefined();
    expect((await c.post(authzUrl, '')).headers['retry-after']).toBeUndefined();
  }, 60_000);

  it('RFC 8555 8.2: the client re-sends its response to a challenge waiting for a retry, and the retry runs at once', async () => {
    const c = await client();
    await c.register();
    const created = await order(c, [{ type: 'dns', value: 'retry-now.localhost' }]);
    const authzUrl = created.json.authorizations[0];
    const challenge = (await c.post(authzUrl, '')).json.challenges.find(
      (x: { type: string }) => x.type === 'http-01',
    );
    responder.answers.set(challenge.token, await c.keyAuthorization(challenge.token));
    responder.dropOnce.add(challenge.token);
    const failed = await c.post(challenge.url, {});
    const failedAt = Date.now();
    expect(failed.json).toMatchObject({ status: 'processing', error: { type: urn('connection') } });
    expect(responder.fetches.get(challenge.token)).toBe(1);
    // The next attempt is due 2 s after the failure; asked for a second after it (the spacing that
    // rate-limits such requests), it runs at once, and the answer is its outcome.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, failedAt + 1_100 - Date.now())));
    const retried = await c.post(challenge.url, {});
    expect(retried.status).toBe(200);
    expect(retried.json).toMatchObject({ status: 'valid' });
    expect(retried.json.error).toBeUndefined();
    expect(responder.fetches.get(challenge.token)).toBe(2);
    expect((await c.post(authzUrl, '')).json.status).toBe('valid');
    // Once valid, another response changes nothing and fetches nothing.
    expect((await c.post(challenge.url, {})).json.status).toBe('valid');
    expect(responder.fetches.get(challenge.token)).toBe(2);
  }, 60_000);

  /** A new order for `name` and its authorization's http-01 challenge, answered by the responder. */
  async function http01Challenge(c: TestAcmeClient, name: string, keyAuthorization?: string) {
    await c.register();
    const created = await order(c, [{ type: 'dns', value: name }]);
    const authzUrl = created.json.authorizations[0];
    const challenge = (await c.post(authzUrl, '')).json.challenges.find(
      (x: { type: string }) => x.type === 'http-01',
    );
    responder.answers.set(challenge.token, keyAuthorization ?? (await c.keyAuthorization(challenge.token)));
    return { orderUrl: created.headers.location as string, authzUrl, challenge };
  }

  it('RFC 8555 7.5.1: a first attempt that ends in time is the answer; the authorization and order have moved', async () => {
    const c = await client();
    const { orderUrl, authzUrl, challenge } = await http01Challenge(c, 'answered.localhost');
    const offered = (await c.post(authzUrl, '')).json.challenges.map((x: { type: string }) => x.type);
    expect(offered).toEqual(expect.arrayContaining(['http-01', 'dns-01']));
    const answer = await c.post(challenge.url, {});
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ status: 'valid', url: challenge.url, token: challenge.token });
    expect(Date.parse(answer.json.validated)).toBeGreaterThan(Date.now() - 60_000);
    const authz = (await c.post(authzUrl, '')).json;
    expect(authz.status).toBe('valid');
    // RFC 8555 7.1.4: a valid authorization lists "the challenge that was validated", no longer
    // every one offered.
    expect(authz.challenges).toEqual([
      expect.objectContaining({ type: 'http-01', status: 'valid', url: challenge.url }),
    ]);
    expect((await c.post(orderUrl, '')).json.status).toBe('ready');
  });

  it('while another authorization of the order is pending, a challenge is answered processing at once', async () => {
    const c = await client();
    await c.register();
    const created = await order(c, [
      { type: 'dns', value: 'pair-a.localhost' },
      { type: 'dns', value: 'pair-b.localhost' },
    ]);
    const challenges = [];
    for (const authzUrl of created.json.authorizations) {
      const challenge = (await c.post(authzUrl, '')).json.challenges.find(
        (x: { type: string }) => x.type === 'http-01',
      );
      responder.answers.set(challenge.token, await c.keyAuthorization(challenge.token));
      challenges.push(challenge);
    }
    // The other authorization is untouched: a client answering one by one is not held up.
    expect((await c.post(challenges[0].url, {})).json.status).toBe('processing');
    expect(['processing', 'valid']).toContain((await c.post(challenges[1].url, {})).json.status);
    await pollUntil(c, created.headers.location as string, (json) => json.status === 'ready');
    expect(challenges.map((ch) => responder.fetches.get(ch.token))).toEqual([1, 1]);
  });

  it('RFC 8555 7.5.1: a failed first attempt is answered invalid with its error', async () => {
    const c = await client();
    const { authzUrl, challenge } = await http01Challenge(
      c,
      'refused.localhost',
      'not-the-key-authorization',
    );
    const answer = await c.post(challenge.url, {});
    expect(answer.json.status).toBe('invalid');
    expect(answer.json.error.type).toBe(urn('incorrectResponse'));
    expect((await c.post(authzUrl, '')).json.status).toBe('invalid');
  });

  it('a first attempt slower than SERVICE_ACME_CHALLENGE_ANSWER_WAIT_MS is answered processing and ends in the background', async () => {
    const c = await client();
    const { authzUrl, challenge } = await http01Challenge(c, 'slow.localhost');
    responder.delays.set(challenge.token, 2_500);
    // Answered before the attempt ended (it takes 2.5 s, the answer waits 1 s).
    expect((await c.post(challenge.url, {})).json.status).toBe('processing');
    await pollUntil(c, authzUrl, (json) => json.status === 'valid');
    expect(responder.fetches.get(challenge.token)).toBe(1);
  });

  it('no challenge is validated twice when both replicas are told to start it', async () => {
    const c = await client();
    await c.register();
    const created = await order(c, [{ type: 'dns', value: 'twice.localhost' }]);
    const authz = (await c.post(created.json.authorizations[0], '')).json;
    const challenge = authz.challenges.find((ch: { type: string }) => ch.type === 'http-01');
    responder.answers.set(challenge.token, await c.keyAuthorization(challenge.token));
    const otherChallengeUrl = challenge.url.replace(
      new URL(directoryUrl).origin,
      new URL(secondDirectoryUrl).origin,
    );
    // Each replica sees the URL it was sent to.
    const both = await Promise.all([
      c.post(challenge.url, {}),
      c.post(otherChallengeUrl, {}, { url: otherChallengeUrl }),
    ]);
    expect(both.map((a) => a.status)).toEqual([200, 200]);
    await pollUntil(c, created.json.authorizations[0], (json) => json.status === 'valid');
    expect(responder.fetches.get(challenge.token)).toBe(1);
  });

  it('RFC 8555 7.4: a certificate holds only what the order validated; other kinds of names and the account key are badCSR; must-staple is honoured', async () => {
    const c = await client();
    await c.register();
    const name = 'certified.localhost';
    const created = await order(c, [{ type: 'dns', value: name }]);
    const orderUrl = created.headers.location as string;
    await validateAll(c, created.json);
    await pollUntil(c, orderUrl, (json) => json.status === 'ready');

    // "MUST NOT issue a certificate with contents other than those requested": names of another
    // kind were never validated; refused, the order still ready for an amended CSR.
    const otherNames = await c.post(created.json.finalize, {
      csr: csrFor({
        extensions: [`subjectAltName=DNS:${name},email:ceo@bank.example,URI:https://evil.example/`],
      }),
    });
    expect(otherNames.json.type).toBe(urn('badCSR'));
    expect(otherNames.json.detail).toContain('email:ceo@bank.example');
    // The account's own key never becomes a certificate's key.
    const keyPem = (c.privateKey as KeyObject).export({ type: 'pkcs8', format: 'pem' }) as string;
    const accountKey = await c.post(created.json.finalize, { csr: csrFor({ dns: [name], keyPem }) });
    expect(accountKey.json.type).toBe(urn('badCSR'));
    expect((await c.post(orderUrl, '')).json.status).toBe('ready');

    // The name only as the common name, beside subject attributes nobody validated, and must-staple.
    const finalized = await c.post(created.json.finalize, {
      csr: csrFor({
        subject: `/C=US/O=Evil Bank Inc/OU=Treasury/CN=${name}`,
        extensions: ['tlsfeature=status_request'],
      }),
    });
    expect(finalized.json.status).toBe('valid');
    const leaf = parseCertificates((await c.post(finalized.json.certificate, '')).text)[0];
    const x509 = new X509Certificate(leaf.der);
    expect(x509.subject).toBe(`CN=${name}`);
    expect(x509.subjectAltName).toBe(`DNS:${name}`);
    expect(leaf.decoded.mustStaple).toBe(true);
  });

  it('RFC 8555 7.4.2: the certificate links each alternate chain with rel="alternate", served at cert/{id}/{n}', async () => {
    const c = await client();
    await c.register();
    const created = await order(c, [{ type: 'dns', value: 'alternates.localhost' }]);
    await validateAll(c, created.json);
    await pollUntil(c, created.headers.location as string, (json) => json.status === 'ready');
    const finalized = await c.post(created.json.finalize, { csr: csrFor({ dns: ['alternates.localhost'] }) });
    const certificateUrl = finalized.json.certificate as string;
    const id = certificateUrl.split('/').pop()!;
    const plain = await c.post(certificateUrl, '');
    expect(plain.headers.link).not.toContain('rel="alternate"');
    // What issuance hands over when a CA on the chain is cross-certified (ADR 0070) is stored as
    // is; any other PEM stands for it here (the leaf alone: distinct from the default chain).
    const [alternate] = plain.text.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n/g)!;
    expect(alternate).not.toBe(plain.text);
    await db.query('UPDATE protocol_frontends.acme_certificates SET alternate_chains = $2 WHERE id = $1', [
      id,
      [alternate],
    ]);

    const byDefault = await c.post(certificateUrl, '');
    expect([byDefault.status, byDefault.text]).toEqual([200, plain.text]);
    expect(byDefault.headers.link).toContain(`<${certificateUrl}/1>;rel="alternate"`);
    const first = await c.post(`${certificateUrl}/1`, '');
    expect([first.status, first.headers['content-type'], first.text]).toEqual([
      200,
      'application/pem-certificate-chain',
      alternate,
    ]);
    expect(first.headers.link).toContain(`<${certificateUrl}>;rel="alternate"`);
    const beyond = await c.post(`${certificateUrl}/2`, '');
    expect([beyond.status, beyond.json.type]).toEqual([404, urn('malformed')]);
  });

  it('RFC 8555 7.4.2: Accept asks for the leaf in DER or the chain as PKCS#7; anything else, JSON or */* included, gets the PEM chain', async () => {
    const c = await client();
    await c.register();
    const { pem, certificateUrl } = await certificateFor(c, ['formats.localhost']);
    const chain = parseCertificates(pem).map((certificate) => certificate.der);
    expect(chain.length).toBeGreaterThan(1);

    const der = await c.post(certificateUrl, '', {}, { accept: 'application/pkix-cert' });
    expect([der.status, der.headers['content-type'], der.headers.vary]).toEqual([
      200,
      'application/pkix-cert',
      'Accept',
    ]);
    expect(der.bytes.equals(chain[0])).toBe(true);

    // The certs-only PKCS#7 as OpenSSL reads it: the whole chain, leaf first.
    const pkcs7 = await c.post(certificateUrl, '', {}, { accept: 'application/pkcs7-mime' });
    expect(pkcs7.headers['content-type']).toBe('application/pkcs7-mime');
    const printed = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs'], {
      input: pkcs7.bytes,
    })
      .toString()
      .match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!;
    expect(printed.map((block) => new X509Certificate(block).raw.toString('hex'))).toEqual(
      chain.map((certificate) => certificate.toString('hex')),
    );

    for (const accept of [
      'application/json, application/jose+json',
      '*/*',
      'application/pkix-cert;q=0.5, application/pem-certificate-chain',
    ]) {
      const answer = await c.post(certificateUrl, '', {}, { accept });
      expect([accept, answer.status, answer.headers['content-type'], answer.text]).toEqual([
        accept,
        200,
        'application/pem-certificate-chain',
        pem,
      ]);
    }
  });

  it('RFC 8555 7.6: revokeCert by the certificate key or the account; a stranger is unauthorized; twice is alreadyRevoked', async () => {
    const owner = await client();
    await owner.register();
    const { pem, der, orderId } = await certificateFor(owner, ['revoke.localhost']);

    const stranger = await client();
    await stranger.register();
    const refused = await stranger.post((await stranger.directory()).revokeCert, { certificate: der });
    expect(refused.json.type).toBe(urn('unauthorized'));
    const badReason = await owner.post((await owner.directory()).revokeCert, { certificate: der, reason: 7 });
    expect(badReason.json.type).toBe(urn('badRevocationReason'));

    const revoked = await owner.post((await owner.directory()).revokeCert, { certificate: der, reason: 4 });
    expect(revoked.status).toBe(200);
    const twice = await owner.post((await owner.directory()).revokeCert, { certificate: der });
    expect(twice.json.type).toBe(urn('alreadyRevoked'));
    // The revocation reached the issuer (issuance's record, which CRL and OCSP follow).
    const { rows } = await db.query(
      `SELECT r.reason FROM issuance.revocations r
       JOIN protocol_frontends.acme_certificates c ON c.issuer_id = r.issuer_id AND c.serial_hex = r.serial_hex
       WHERE c.order_id = $1`,
      [orderId],
    );
    expect(rows).toEqual([{ reason: 'superseded' }]);
    // The inventory too: the certificate the order recorded is Revoked, with the reason.
    const inventory = await db.query(
      `SELECT i.status, i.revocation_reason FROM issuance.certificates i
        JOIN protocol_frontends.acme_certificates c ON c.certificate_id = i.id WHERE c.order_id = $1`,
      [orderId],
    );
    expect(inventory.rows).toEqual([{ status: 'Revoked', revocation_reason: 'superseded' }]);

    // RFC 9773 4.2: a revoked certificate's renewal window has already passed.
    const leaf = parseCertificates(pem)[0];
    const certId = `${leaf.decoded.authorityKeyIdentifier!.toString('base64url')}.${leaf.serialBytes.toString('base64url')}`;
    const info = await exchange('GET', `${(await owner.directory()).renewalInfo}/${certId}`, system.ca);
    expect(new Date(info.json.suggestedWindow.end).getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('RFC 9773 4.2 and RFC 8555 7.6: a revocation in the inventory moves the renewal window to the past; a hold released moves it back; revokeCert is then alreadyRevoked', async () => {
    const owner = await client();
    await owner.register();
    const { pem, der, orderId } = await certificateFor(owner, ['operator-revoked.localhost']);
    const leaf = parseCertificates(pem)[0];
    const certId = `${leaf.decoded.authorityKeyIdentifier!.toString('base64url')}.${leaf.serialBytes.toString('base64url')}`;
    const renewalInfoUrl = `${(await owner.directory()).renewalInfo}/${certId}`;
    const windowEnd = async () =>
      new Date((await exchange('GET', renewalInfoUrl, system.ca)).json.suggestedWindow.end).getTime();
    expect(await windowEnd()).toBeGreaterThan(Date.now());
    const {
      rows: [{ certificate_id: inventoryId }],
    } = await db.query(
      `SELECT certificate_id FROM protocol_frontends.acme_certificates WHERE order_id = $1`,
      [orderId],
    );
    const operatorRevokes = (reason: 'certificateHold' | 'removeFromCRL' | 'keyCompromise') =>
      bus.request('issuance.v1.revoke-managed-certificate', { id: inventoryId, reason });

    // An operator's hold: renew now. Its release (RFC 5280 5.3.1): the usual window again.
    await operatorRevokes('certificateHold');
    await eventually(async () => (await windowEnd()) <= Date.now(), 'the window after the hold');
    await operatorRevokes('removeFromCRL');
    await eventually(async () => (await windowEnd()) > Date.now(), 'the window after the release');

    await operatorRevokes('keyCompromise');
    await eventually(async () => (await windowEnd()) <= Date.now(), 'the window after the revocation');
    const again = await owner.post((await owner.directory()).revokeCert, { certificate: der, reason: 4 });
    expect(again.json.type).toBe(urn('alreadyRevoked'));
    const { rows } = await db.query(
      `SELECT revocation_reason FROM protocol_frontends.acme_certificates WHERE certificate_id = $1`,
      [inventoryId],
    );
    expect(rows).toEqual([{ revocation_reason: 'keyCompromise' }]);
  });

  it('RFC 5280 5.3.1 and RFC 8555 7.6: a certificate on hold is revoked for good by revokeCert and by an operator, not alreadyRevoked', async () => {
    const owner = await client();
    await owner.register();
    const holdThenRevoke = async (name: string) => {
      const issued = await certificateFor(owner, [name]);
      const {
        rows: [{ certificate_id: inventoryId }],
      } = await db.query(
        `SELECT certificate_id FROM protocol_frontends.acme_certificates WHERE order_id = $1`,
        [issued.orderId],
      );
      await bus.request('issuance.v1.revoke-managed-certificate', {
        id: inventoryId,
        reason: 'certificateHold',
      });
      const acmeReason = async () =>
        (
          await db.query(
            `SELECT revocation_reason FROM protocol_frontends.acme_certificates WHERE certificate_id = $1`,
            [inventoryId],
          )
        ).rows[0].revocation_reason;
      await eventually(async () => (await acmeReason()) === 'certificateHold', 'the hold heard');
      return { ...issued, inventoryId, acmeReason };
    };

    // The subscriber revokes its held certificate for key compromise.
    const byClient = await holdThenRevoke('held-then-revoked.localhost');
    const revoked = await owner.post((await owner.directory()).revokeCert, {
      certificate: byClient.der,
      reason: 1,
    });
    expect(revoked.status).toBe(200);
    expect(await byClient.acmeReason()).toBe('keyCompromise');
    const inventory = await db.query(
      `SELECT status, revocation_reason FROM issuance.certificates WHERE id = $1`,
      [byClient.inventoryId],
    );
    expect(inventory.rows).toEqual([{ status: 'Revoked', revocation_reason: 'keyCompromise' }]);
    const again = await owner.post((await owner.directory()).revokeCert, {
      certificate: byClient.der,
      reason: 4,
    });
    expect(again.json.type).toBe(urn('alreadyRevoked'));

    // An operator's final reason replaces the hold in the ACME record too.
    const byOperator = await holdThenRevoke('held-then-operator-revoked.localhost');
    await bus.request('issuance.v1.revoke-managed-certificate', {
      id: byOperator.inventoryId,
      reason: 'keyCompromise',
    });
    await eventually(
      async () => (await byOperator.acmeReason()) === 'keyCompromise',
      'the final reason heard',
    );
  });

  it('RFC 8555 7.6: a revocation an operator made before the service heard of it is alreadyRevoked, not revoked again', async () => {
    const owner = await client();
    await owner.register();
    const { pem, der } = await certificateFor(owner, ['raced-revoke.localhost']);
    const leaf = new X509Certificate(pem);
    // Revoked at the issuer directly and, before its event can arrive, the ACME record unmarked:
    // what protocol-frontends sees while the event is still on its way.
    const serial = leaf.serialNumber.toLowerCase().replace(/^0+(?=.)/, '');
    await bus.request('issuance.v1.revoke-certificate', {
      issuer_id: 'iss-local',
      serial_hex: serial,
      reason: 'cessationOfOperation',
    });
    await eventually(
      async () =>
        (
          await db.query(
            `SELECT 1 FROM protocol_frontends.acme_certificates WHERE serial_hex = $1 AND revoked_at IS NOT NULL`,
            [serial],
          )
        ).rows.length === 1,
      'the revocation event',
    );
    await db.query(
      `UPDATE protocol_frontends.acme_certificates SET revoked_at = NULL, revocation_reason = NULL WHERE serial_hex = $1`,
      [serial],
    );
    const answer = await owner.post((await owner.directory()).revokeCert, { certificate: der, reason: 1 });
    expect(answer.json.type).toBe(urn('alreadyRevoked'));
    const { rows } = await db.query(
      `SELECT revocation_reason FROM protocol_frontends.acme_certificates WHERE serial_hex = $1`,
      [serial],
    );
    // The issuer's first reason, not the request's.
    expect(rows).toEqual([{ revocation_reason: 'cessationOfOperation' }]);
  });

  it("RFC 8555 7.6: an account holding valid authorizations for every identifier may revoke another account's certificate; one holding some may not", async () => {
    const names = ['rv-a.localhost', 'rv-b.localhost'];
    const owner = await client();
    await owner.register();
    const { der } = await certificateFor(owner, names);

    // Control proven over one of the two names only: not enough.
    const partial = await client();
    await partial.register();
    await validateAll(partial, (await order(partial, [{ type: 'dns', value: names[0] }])).json);
    const refused = await partial.post((await partial.directory()).revokeCert, { certificate: der });
    expect(refused.json.type).toBe(urn('unauthorized'));

    const authorized = await client();
    await authorized.register();
    const proven = await order(
      authorized,
      names.map((value) => ({ type: 'dns', value })),
    );
    await validateAll(authorized, proven.json);
    await pollUntil(authorized, proven.headers.location as string, (json) => json.status === 'ready');
    const revoked = await authorized.post((await authorized.directory()).revokeCert, {
      certificate: der,
      reason: 1,
    });
    expect(revoked.status).toBe(200);
    const accountId = authorized.kid!.split('/').pop()!;
    const { rows } = await db.query(
      `SELECT envelope->'data'->'details' AS details FROM protocol_frontends.outbox
       WHERE envelope->'data'->>'action' = 'acme.certificate_revoked' AND envelope->'data'->>'actor_id' = $1`,
      [`acme-account:${accountId}`],
    );
    expect(rows).toEqual([
      { details: expect.objectContaining({ by: 'authorized_account', reason: 'keyCompromise' }) },
    ]);
  });
  it('counts orders, validations, certificates and problems on /metrics (Prometheus)', async () => {
    const scrape = () => scrapeMetrics(system.services['protocol-frontends'].url, system.ca);
    const value = (text: string, [name, ...labels]: string[]) => metricValue(text, name, ...labels);
    const series = {
      orders: ['certlane_acme_orders_created_total', 'profile="default"'],
      valid: ['certlane_acme_validations_total', 'type="http-01"', 'result="valid"'],
      timed: ['certlane_acme_validation_duration_seconds_count', 'type="http-01"'],
      issued: ['certlane_acme_certificates_issued_total', 'profile="default"'],
      badNonce: ['certlane_acme_problems_total', 'type="badNonce"'],
    };
    const before = await scrape();
    const c = await client();
    await c.register();
    await certificateFor(c, ['metrics.localhost']);
    const nonce = await c.nonce();
    const url = (await c.directory()).newOrder;
    const identifiers = [{ type: 'dns', value: 'metrics-two.localhost' }];
    expect((await c.post(url, { identifiers }, { nonce })).status).toBe(201);
    expect((await c.post(url, { identifiers }, { nonce })).json.type).toBe(urn('badNonce'));
    const after = await scrape();
    expect(value(after, series.orders) - value(before, series.orders)).toBe(2);
    expect(value(after, series.valid) - value(before, series.valid)).toBe(1);
    expect(value(after, series.timed) - value(before, series.timed)).toBe(1);
    expect(value(after, series.issued) - value(before, series.issued)).toBe(1);
    expect(value(after, series.badNonce) - value(before, series.badNonce)).toBe(1);
  });
});
