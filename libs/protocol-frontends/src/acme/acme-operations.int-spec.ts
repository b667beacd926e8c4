import {
  AcmeBulkEarlyRenewalResult,
  AcmeOrderDetailDto,
  AcmeOrderDto,
  AcmeRenewalInfoDto,
  AcmeValidationAttemptDto,
  AuditEventDto,
  Page,
} from '@certlane/contracts';
import { randomBytes } from 'node:crypto';
import { parseCertificates } from '@certlane/pki';
import {
  eventually,
  freePort,
  httpsRequest,
  HttpsResult,
  startTestSystem,
  TestSystem,
} from '@certlane/testing';
import { Client } from 'pg';
import { csrFor, exchange, Http01Responder, TestAcmeClient } from './testing/acme-test-client';
import { OrdinaryAlpnResponder } from './testing/alpn-responder';

const REVOKED_EXPLANATION = 'https://ca.example/revoked';

/**
 * The operators' side of orders, validation attempts and early renewal (issue 19 points 5 and
 * 10) over the wire: a plain ACME client orders through protocol-frontends, operators read and
 * act through the gateway, and renewal-info (RFC 9773) answers what they did. No ACME client
 * packaged by Debian speaks RFC 9773 (certbot 2.1, lego 4.9), so the client here is the test's.
 */
describe('ACME orders, validation attempts and early renewal for operators', () => {
  let system: TestSystem;
  let responder: Http01Responder;
  let directoryUrl: string;
  let db: Client;
  let operatorKey: string;
  let viewerKey: string;
  let tlsAlpn01Port: number;
  let alpnResponder: OrdinaryAlpnResponder | undefined;

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

  async function keyWithRole(role: string): Promise<string> {
    const created = await api('POST', '/api/v1/auth/api-keys', { name: `acmeops-${role}`, role_ids: [role] });
    expect(created.status).toBe(201);
    return (created.json() as { key: string }).key;
  }

  beforeAll(async () => {
    const http01Port = await freePort();
    tlsAlpn01Port = await freePort();
    // Listening from the start: a port chosen now and bound only when its test runs, a minute or
    // more later, may meanwhile be taken as the ephemeral port of some other connection.
    alpnResponder = await OrdinaryAlpnResponder.start(tlsAlpn01Port, 'ops-alpn.localhost');
    system = await startTestSystem('acmeops2', ['auth', 'api-gateway', 'issuance', 'protocol-frontends'], {
      SERVICE_ACME_HTTP01_PORT: String(http01Port),
      SERVICE_ACME_TLSALPN01_PORT: String(tlsAlpn01Port),
      SERVICE_ACME_REVOCATION_EXPLANATION_URL: REVOKED_EXPLANATION,
      // The retention purge (ADR 0073) at every sweep, for the test of it below.
      SERVICE_ACME_RETENTION_INTERVAL: '10s',
    });
    responder = await Http01Responder.start(http01Port);
    directoryUrl = `${system.services['protocol-frontends'].url}/acme/directory`;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    operatorKey = await keyWithRole('r-operator');
    viewerKey = await keyWithRole('r-viewer');
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await responder?.stop();
    await alpnResponder?.stop();
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

  /** Orders `name`, answers its http-01 challenge (wrongly if asked), waits for the outcome. */
  async function orderAndValidate(
    c: TestAcmeClient,
    name: string,
    options: { wrong?: boolean; dropFirst?: boolean } = {},
  ) {
    const created = await c.post((await c.directory()).newOrder, {
      identifiers: [{ type: 'dns', value: name }],
    });
    expect(created.status).toBe(201);
    const authzUrl = created.json.authorizations[0];
    const challenge = (await c.post(authzUrl, '')).json.challenges.find(
      (ch: { type: string }) => ch.type === 'http-01',
    );
    responder.answers.set(
      challenge.token,
      options.wrong ? 'not-the-key-authorization' : await c.keyAuthorization(challenge.token),
    );
    if (options.dropFirst) responder.dropOnce.add(challenge.token);
    await c.post(challenge.url, {});
    // A dropped connection is retried 2 s later (ADR 0053), so this may take a few seconds.
    for (let i = 0; i < 100; i++) {
      if ((await c.post(authzUrl, '')).json.status !== 'pending') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { orderUrl: created.headers.location as string, orderJson: created.json };
  }

  const orderIdOf = (url: string) => url.split('/').pop()!;

  it('lists and shows orders with filters, and every validation attempt, retried ones too', async () => {
    const c = await TestAcmeClient.create(directoryUrl, system.ca);
    const account = (await c.register()).headers.location!.toString().split('/').pop()!;
    const good = await orderAndValidate(c, 'ops-good.localhost', { dropFirst: true });
    const bad = await orderAndValidate(c, 'ops-bad.localhost', { wrong: true });
    await pollUntil(c, good.orderUrl, (json) => json.status === 'ready');

    const listed = (
      await api('GET', `/api/v1/admin/acme/orders?account_id=${account}`)
    ).json() as Page<AcmeOrderDto>;
    expect(listed.total).toBe(2);
    expect(listed.data.map((o) => [o.id, o.status])).toEqual([
      [orderIdOf(bad.orderUrl), 'invalid'],
      [orderIdOf(good.orderUrl), 'ready'],
    ]);
    const byIdentifier = (
      await api('GET', '/api/v1/admin/acme/orders?identifier=OPS-GOOD.localhost')
    ).json() as Page<AcmeOrderDto>;
    expect(byIdentifier.data.map((o) => o.id)).toEqual([orderIdOf(good.orderUrl)]);
    const invalid = (
      await api('GET', `/api/v1/admin/acme/orders?account_id=${account}&status=invalid`)
    ).json() as Page<AcmeOrderDto>;
    expect(invalid.data.map((o) => o.id)).toEqual([orderIdOf(bad.orderUrl)]);
    expect((await api('GET', '/api/v1/admin/acme/orders?status=done')).status).toBe(400);

    const detail = (
      await api('GET', `/api/v1/admin/acme/orders/${orderIdOf(bad.orderUrl)}`)
    ).json() as AcmeOrderDetailDto;
    expect(detail).toMatchObject({ status: 'invalid', account_id: account, certificate_id: null });
    expect(detail.authorizations).toHaveLength(1);
    expect(detail.authorizations[0]).toMatchObject({
      identifier: { type: 'dns', value: 'ops-bad.localhost' },
      status: 'invalid',
    });
    const failedChallenge = detail.authorizations[0].challenges.find((ch) => ch.type === 'http-01')!;
    expect(failedChallenge.error).toMatchObject({ type: 'urn:ietf:params:acme:error:incorrectResponse' });
    expect((await api('GET', '/api/v1/admin/acme/orders/AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);

    // The good order: a dropped connection (retry), then the right answer (valid), newest first.
    const goodAttempts = (
      await api('GET', `/api/v1/admin/acme/validation-attempts?order_id=${orderIdOf(good.orderUrl)}`)
    ).json() as Page<AcmeValidationAttemptDto>;
    expect(goodAttempts.data.map((a) => a.result)).toEqual(['valid', 'retry']);
    expect(goodAttempts.data[0]).toMatchObject({
      type: 'http-01',
      identifier_type: 'dns',
      identifier_value: 'ops-good.localhost',
      account_id: account,
      error: null,
      remote_address: '127.0.0.1',
    });
    expect(goodAttempts.data[1].error).toMatchObject({ type: 'urn:ietf:params:acme:error:connection' });
    const failed = (
      await api('GET', `/api/v1/admin/acme/validation-attempts?account_id=${account}&result=invalid`)
    ).json() as Page<AcmeValidationAttemptDto>;
    expect(failed.data).toHaveLength(1);
    expect(failed.data[0]).toMatchObject({
      identifier_value: 'ops-bad.localhost',
      remote_address: '127.0.0.1',
      error: { type: 'urn:ietf:params:acme:error:incorrectResponse' },
    });
    // Written in the transaction that ended the challenge: exactly one final attempt per challenge.
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM protocol_frontends.acme_validation_attempts
       WHERE account_id = $1 AND result <> 'retry'`,
      [account],
    );
    expect(rows[0].n).toBe(2);

    // Admins only, like the accounts (ADR 0060).
    expect((await api('GET', '/api/v1/admin/acme/orders', undefined, operatorKey)).status).toBe(403);
    expect((await api('GET', '/api/v1/admin/acme/validation-attempts', undefined, viewerKey)).status).toBe(
      403,
    );
  }, 60_000);

  it('RFC 9773 4.2: an operator moves the suggested window to now with an explanationURL; Retry-After is unchanged', async () => {
    const c = await TestAcmeClient.create(directoryUrl, system.ca);
    await c.register();
    const { orderUrl, orderJson } = await orderAndValidate(c, 'ops-early.localhost');
    await pollUntil(c, orderUrl, (json) => json.status === 'ready');
    const finalized = await c.post(orderJson.finalize, { csr: csrFor({ dns: ['ops-early.localhost'] }) });
    expect(finalized.json.status).toBe('valid');
    const pem = (await c.post(finalized.json.certificate, '')).text;
    const leaf = parseCertificates(pem)[0];
    const certId = `${leaf.decoded.authorityKeyIdentifier!.toString('base64url')}.${leaf.serialBytes.toString('base64url')}`;
    const renewalInfoUrl = `${(await c.directory()).renewalInfo}/${certId}`;

    const before = await exchange('GET', renewalInfoUrl, system.ca);
    expect(before.json.explanationURL).toBeUndefined();
    const ordinaryStart = new Date(before.json.suggestedWindow.start).getTime();
    expect(ordinaryStart).toBeGreaterThan(Date.now() + 3600_000);

    const order = (
      await api('GET', `/api/v1/admin/acme/orders/${orderIdOf(orderUrl)}`)
    ).json() as AcmeOrderDto;
    expect(order.renewal_id).toBe(certId);
    const certificateId = order.certificate_id!;
    const path = `/api/v1/admin/acme/certificates/${certificateId}/renew-early`;

    // Who may: certificate.renew (operators); not viewers.
    expect((await api('POST', path, {}, viewerKey)).status).toBe(403);
    expect(
      (await api('POST', path, { explanation_url: 'http://status.example/x' }, operatorKey)).status,
    ).toBe(400);
    expect((await api('POST', path, { spread_minutes: 0 }, operatorKey)).status).toBe(400);
    expect(
      (await api('POST', '/api/v1/admin/acme/certificates/AAAAAAAAAAAAAAAAAAAAAA/renew-early', {})).status,
    ).toBe(404);

    const asked = Date.now();
    const renewed = await api(
      'POST',
      path,
      { explanation_url: 'https://status.example/incident-42', spread_minutes: 30 },
      operatorKey,
    );
    expect(renewed.status).toBe(200);
    const answer = renewed.json() as AcmeRenewalInfoDto;
    expect(answer).toMatchObject({
      certificate_id: certificateId,
      renewal_id: certId,
      explanation_url: 'https://status.example/incident-42',
    });
    expect(answer.renew_early_by).toBeTruthy();
    const start = new Date(answer.suggested_window.start).getTime();
    expect(start).toBeGreaterThanOrEqual(asked - 5_000);
    expect(new Date(answer.suggested_window.end).getTime() - start).toBe(30 * 60_000);

    const after = await exchange('GET', renewalInfoUrl, system.ca);
    expect(after.status).toBe(200);
    expect(after.json).toEqual({
      suggestedWindow: answer.suggested_window,
      explanationURL: 'https://status.example/incident-42',
    });
    expect(after.headers['retry-after']).toBe(before.headers['retry-after']);

    // The audit record (acme.certificate_renew_early) is checked by audit-coverage.int-spec.

    // RFC 9773 4.2: once revoked, the window is past and the configured explanation is answered;
    // asking for early renewal of a revoked certificate is a conflict.
    const der = Buffer.from(pem.split('-----')[2].replace(/\s+/g, ''), 'base64').toString('base64url');
    expect((await c.post((await c.directory()).revokeCert, { certificate: der })).status).toBe(200);
    const revoked = await exchange('GET', renewalInfoUrl, system.ca);
    expect(revoked.json.explanationURL).toBe(REVOKED_EXPLANATION);
    expect(new Date(revoked.json.suggestedWindow.end).getTime()).toBeLessThanOrEqual(Date.now());
    const refused = await api('POST', path, {}, operatorKey);
    expect(refused.status).toBe(409);
    expect((refused.json() as { code: string }).code).toBe('acme_certificate_revoked');
  }, 60_000);

  it('RFC 9773 4.2: renew-early also takes the inventory id of a certificate an ACME order issued; other inventory ids are 404', async () => {
    const c = await TestAcmeClient.create(directoryUrl, system.ca);
    await c.register();
    const { orderUrl, orderJson } = await orderAndValidate(c, 'ops-inventory-id.localhost');
    await pollUntil(c, orderUrl, (json) => json.status === 'ready');
    const finalized = await c.post(orderJson.finalize, {
      csr: csrFor({ dns: ['ops-inventory-id.localhost'] }),
    });
    expect(finalized.json.status).toBe('valid');
    const {
      rows: [{ id, certificate_id: inventoryId }],
    } = await db.query(
      `SELECT id, certificate_id FROM protocol_frontends.acme_certificates WHERE order_id = $1`,
      [orderIdOf(orderUrl)],
    );
    expect(inventoryId).toMatch(/^mc-/);
    const renewed = await api(
      'POST',
      `/api/v1/admin/acme/certificates/${inventoryId}/renew-early`,
      {},
      operatorKey,
    );
    expect(renewed.status).toBe(200);
    expect((renewed.json() as AcmeRenewalInfoDto).certificate_id).toBe(id);
    const unknown = await api(
      'POST',
      '/api/v1/admin/acme/certificates/mc-not-in-the-inventory/renew-early',
      {},
    );
    expect([unknown.status, (unknown.json() as { code: string }).code]).toEqual([
      404,
      'acme_certificate_not_found',
    ]);
  }, 60_000);

  // ---- Early renewal of every certificate of an account or profile (RFC 9773 4.2, in bulk) ----

  const BULK = '/api/v1/admin/acme/certificates/bulk-renew-early';
  const id64 = () => randomBytes(16).toString('base64url');

  /** An ACME account as newAccount leaves it, straight in the database. */
  async function insertAccount(): Promise<string> {
    const id = id64();
    await db.query(
      `INSERT INTO protocol_frontends.acme_accounts (id, jwk, jwk_thumbprint) VALUES ($1, '{}'::jsonb, $2)`,
      [id, randomBytes(32).toString('base64url')],
    );
    return id;
  }

  /**
   * An ACME certificate as a valid order leaves it, straight in the database: the states a client
   * takes days to reach (expired, renewed) are one row each here. Times are offsets from now.
   */
  async function insertCertificate(
    account: string,
    options: { profile?: string; notBefore?: string; notAfter?: string; revoked?: boolean } = {},
  ): Promise<{ id: string; renewalId: string }> {
    const [order, id] = [id64(), id64()];
    await db.query(
      `INSERT INTO protocol_frontends.acme_orders (id, account_id, profile_id, status, identifiers, expires_at)
       VALUES ($1, $2, $3, 'valid', '[{"type":"dns","value":"bulk.localhost"}]', now() + interval '1 day')`,
      [order, account, options.profile ?? 'default'],
    );
    const renewalId = `${id}.AQ`;
    await db.query(
      `INSERT INTO protocol_frontends.acme_certificates
         (id, order_id, account_id, issuer_id, serial_hex, pem_chain, not_before, not_after, renewal_id, revoked_at)
       VALUES ($1, $2, $3, 'bulk-issuer', $4, 'pem', now() + $5::interval, now() + $6::interval, $7,
               CASE WHEN $8 THEN now() END)`,
      [
        id,
        order,
        account,
        randomBytes(8).toString('hex'),
        options.notBefore ?? '-1 day',
        options.notAfter ?? '89 days',
        renewalId,
        options.revoked ?? false,
      ],
    );
    return { id, renewalId };
  }

  async function earlyRows(ids: string[]) {
    const { rows } = await db.query(
      `SELECT id, renew_early_start, renew_early_end, explanation_url, renew_early_by, not_after
       FROM protocol_frontends.acme_certificates WHERE id = ANY($1)`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id as string, row]));
  }

  const renewalInfoOf = (renewalId: string) =>
    exchange('GET', `${system.services['protocol-frontends'].url}/acme/renewal-info/${renewalId}`, system.ca);

  it("RFC 9773 4.2 in bulk: every live certificate of an account moves in one call; revoked, expired, replaced ones and another account's stay", async () => {
    const [account, other] = [await insertAccount(), await insertAccount()];
    const live = await insertCertificate(account);
    // Ends before the spread does: its window closes at its end.
    const endingSoon = await insertCertificate(account, { notBefore: '-10 minutes', notAfter: '30 minutes' });
    const revoked = await insertCertificate(account, { revoked: true });
    const expired = await insertCertificate(account, { notBefore: '-91 days', notAfter: '-1 day' });
    const renewed = await insertCertificate(account, { notBefore: '-60 days', notAfter: '30 days' });
    const renewal = await insertCertificate(account);
    await db.query(`UPDATE protocol_frontends.acme_certificates SET replaced_by_id = $2 WHERE id = $1`, [
      renewed.id,
      renewal.id,
    ]);
    const othersLive = await insertCertificate(other);
    const all = [live, endingSoon, revoked, expired, renewed, renewal, othersLive].map((c) => c.id);
    const before = await renewalInfoOf(othersLive.renewalId);

    // Exactly one of account_id and acme_profile_id (400), an account that exists (404).
    const neither = await api('POST', BULK, { spread_minutes: 5 }, operatorKey);
    expect(neither.status).toBe(400);
    expect(neither.json()).toMatchObject({ code: 'validation_failed' });
    const both = await api('POST', BULK, { account_id: account, acme_profile_id: 'default' }, operatorKey);
    expect(both.status).toBe(400);
    expect(both.json()).toMatchObject({ code: 'validation_failed' });
    expect((await api('POST', BULK, { account_id: 'not an id' }, operatorKey)).status).toBe(400);
    expect(
      (await api('POST', BULK, { account_id: account, explanation_url: 'http://x.example/' }, operatorKey))
        .status,
    ).toBe(400);
    const unknown = await api('POST', BULK, { account_id: 'AAAAAAAAAAAAAAAAAAAAAA' }, operatorKey);
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'acme_account_not_found' });
    // Who may: certificate.renew, as for one certificate; not viewers.
    expect((await api('POST', BULK, { account_id: account }, viewerKey)).status).toBe(403);
    // Nothing moved by the refused calls.
    for (const row of (await earlyRows(all)).values()) expect(row.renew_early_start).toBeNull();

    const asked = Date.now();
    const response = await api(
      'POST',
      BULK,
      { account_id: account, explanation_url: 'https://status.example/issuer-key', spread_minutes: 120 },
      operatorKey,
    );
    expect(response.status).toBe(200);
    const answer = response.json() as AcmeBulkEarlyRenewalResult;
    expect(answer).toMatchObject({
      account_id: account,
      acme_profile_id: null,
      total_moved: 3,
      explanation_url: 'https://status.example/issuer-key',
    });
    const start = new Date(answer.suggested_window.start);
    const end = new Date(answer.suggested_window.end);
    expect(start.getTime()).toBeGreaterThanOrEqual(asked - 5_000);
    expect(end.getTime() - start.getTime()).toBe(120 * 60_000);

    const rows = await earlyRows(all);
    for (const moved of [live, renewal]) {
      expect(rows.get(moved.id)).toMatchObject({
        renew_early_start: start,
        renew_early_end: end,
        explanation_url: 'https://status.example/issuer-key',
        renew_early_by: answer.renew_early_by,
      });
    }
    expect(rows.get(endingSoon.id)).toMatchObject({
      renew_early_start: start,
      renew_early_end: rows.get(endingSoon.id)!.not_after,
    });
    for (const untouched of [revoked, expired, renewed, othersLive])
      expect(rows.get(untouched.id)).toMatchObject({
        renew_early_start: null,
        renew_early_end: null,
        explanation_url: null,
        renew_early_by: null,
      });

    // renewal-info answers the moved window; the others answer what they did before.
    const after = await renewalInfoOf(live.renewalId);
    expect(after.status).toBe(200);
    expect(after.json).toEqual({
      suggestedWindow: answer.suggested_window,
      explanationURL: 'https://status.example/issuer-key',
    });
    expect((await renewalInfoOf(renewal.renewalId)).json.suggestedWindow).toEqual(answer.suggested_window);
    expect((await renewalInfoOf(othersLive.renewalId)).json).toEqual(before.json);
    const revokedInfo = await renewalInfoOf(revoked.renewalId);
    expect(revokedInfo.json.explanationURL).toBe(REVOKED_EXPLANATION);
    expect(new Date(revokedInfo.json.suggestedWindow.end).getTime()).toBeLessThanOrEqual(Date.now());

    // One audit record for the call, with its criteria and count (spec 6.1).
    let event: AuditEventDto | undefined;
    await eventually(async () => {
      const listed = (
        await api('GET', '/api/v1/audit?action=acme.certificate_bulk_renew_early&per_page=100')
      ).json() as Page<AuditEventDto>;
      const mine = listed.data.filter(
        (e) => (e.details as { criteria?: { account_id?: string } }).criteria?.account_id === account,
      );
      expect(mine.length).toBeLessThanOrEqual(1);
      event = mine[0];
      return event !== undefined;
    }, 'the acme.certificate_bulk_renew_early audit record');
    expect(event).toMatchObject({
      service: 'protocol-frontends',
      event_category: 'cert_lifecycle',
      actor_id: answer.renew_early_by,
      resource_type: 'acme_certificate',
      resource_id: 'bulk',
      outcome: 'success',
      details: {
        criteria: { account_id: account },
        total_moved: 3,
        window: answer.suggested_window,
        spread_minutes: 120,
        explanation_url: 'https://status.example/issuer-key',
      },
    });
  }, 60_000);

  it('RFC 9773 4.2 in bulk: every live certificate ordered under a profile moves, whichever account ordered it', async () => {
    const profile = `bulk-${randomBytes(4).toString('hex')}`;
    expect((await api('POST', '/api/v1/admin/acme/profiles', { id: profile })).status).toBe(201);
    const [first, second] = [await insertAccount(), await insertAccount()];
    const mine = [await insertCertificate(first, { profile }), await insertCertificate(second, { profile })];
    const revoked = await insertCertificate(second, { profile, revoked: true });
    const onDefault = await insertCertificate(first);
    const all = [...mine, revoked, onDefault].map((c) => c.id);

    const unknown = await api('POST', BULK, { acme_profile_id: 'no-such-profile' }, operatorKey);
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'acme_profile_not_found' });
    expect((await api('POST', BULK, { acme_profile_id: 'Not A Profile' }, operatorKey)).status).toBe(400);

    const response = await api('POST', BULK, { acme_profile_id: profile }, operatorKey);
    expect(response.status).toBe(200);
    const answer = response.json() as AcmeBulkEarlyRenewalResult;
    expect(answer).toMatchObject({
      account_id: null,
      acme_profile_id: profile,
      total_moved: 2,
      explanation_url: null,
    });
    // The default spread: an hour.
    expect(
      new Date(answer.suggested_window.end).getTime() - new Date(answer.suggested_window.start).getTime(),
    ).toBe(3600_000);
    const rows = await earlyRows(all);
    for (const moved of mine)
      expect(rows.get(moved.id)).toMatchObject({
        renew_early_start: new Date(answer.suggested_window.start),
        renew_early_end: new Date(answer.suggested_window.end),
      });
    for (const untouched of [revoked, onDefault])
      expect(rows.get(untouched.id)!.renew_early_start).toBeNull();
    for (const moved of mine)
      expect((await renewalInfoOf(moved.renewalId)).json).toEqual({
        suggestedWindow: answer.suggested_window,
      });

    // A profile with nothing live moves nothing, and `default` exists before it is stored.
    const empty = `bulk-${randomBytes(4).toString('hex')}`;
    expect((await api('POST', '/api/v1/admin/acme/profiles', { id: empty })).status).toBe(201);
    const none = await api('POST', BULK, { acme_profile_id: empty }, operatorKey);
    expect(none.status).toBe(200);
    expect((none.json() as AcmeBulkEarlyRenewalResult).total_moved).toBe(0);
    expect((await api('POST', BULK, { acme_profile_id: 'default', spread_minutes: 1 })).status).toBe(200);
  }, 60_000);

  it('records the address a tls-alpn-01 handshake reached, with the problem it found', async () => {
    // The responder negotiates acme-tls/1 but shows an ordinary certificate (RFC 8737 3: unauthorized).
    const c = await TestAcmeClient.create(directoryUrl, system.ca);
    await c.register();
    const created = await c.post((await c.directory()).newOrder, {
      identifiers: [{ type: 'dns', value: 'ops-alpn.localhost' }],
    });
    const authzUrl = created.json.authorizations[0];
    const challenge = (await c.post(authzUrl, '')).json.challenges.find(
      (ch: { type: string }) => ch.type === 'tls-alpn-01',
    );
    await c.post(challenge.url, {});
    await pollUntil(c, authzUrl, (json) => json.status !== 'pending');
    const attempts = (
      await api(
        'GET',
        `/api/v1/admin/acme/validation-attempts?order_id=${orderIdOf(created.headers.location as string)}`,
      )
    ).json() as Page<AcmeValidationAttemptDto>;
    expect(attempts.data).toHaveLength(1);
    expect(attempts.data[0]).toMatchObject({
      type: 'tls-alpn-01',
      result: 'invalid',
      identifier_value: 'ops-alpn.localhost',
      remote_address: '127.0.0.1',
      error: { type: 'urn:ietf:params:acme:error:unauthorized' },
    });
  }, 60_000);
  // ---- Retention (ADR 0073) ----

  it('purges what ended before the retention (90 days): an old failed order with its authorization, challenge and attempt; a recent one stays', async () => {
    const account = await insertAccount();
    /** A failed order created `days` ago, with its authorization (7 days pending), challenge and attempt. */
    const failedOrder = async (days: number, identifier: string) => {
      const [order, authorization, challenge] = [id64(), id64(), id64()];
      const created = `now() - ${days} * interval '1 day'`;
      await db.query(
        `INSERT INTO protocol_frontends.acme_authorizations (id, account_id, identifier_type, identifier_value, status, expires_at, created_at)
         VALUES ($1, $2, 'dns', $3, 'invalid', ${created} + interval '7 days', ${created})`,
        [authorization, account, identifier],
      );
      await db.query(
        `INSERT INTO protocol_frontends.acme_challenges (id, authorization_id, type, token, status)
         VALUES ($1, $2, 'http-01', $3, 'invalid')`,
        [challenge, authorization, randomBytes(32).toString('base64url')],
      );
      await db.query(
        `INSERT INTO protocol_frontends.acme_orders (id, account_id, profile_id, status, identifiers, expires_at, created_at)
         VALUES ($1, $2, 'default', 'invalid', $3::jsonb, ${created} + interval '7 days', ${created})`,
        [order, account, JSON.stringify([{ type: 'dns', value: identifier }])],
      );
      await db.query(
        `INSERT INTO protocol_frontends.acme_order_authorizations (order_id, authorization_id) VALUES ($1, $2)`,
        [order, authorization],
      );
      await db.query(
        `INSERT INTO protocol_frontends.acme_validation_attempts
           (challenge_id, authorization_id, account_id, type, identifier_type, identifier_value, result, attempted_at)
         VALUES ($1, $2, $3, 'http-01', 'dns', $4, 'invalid', ${created} + interval '1 hour')`,
        [challenge, authorization, account, identifier],
      );
      return { order, authorization, challenge };
    };
    const old = await failedOrder(120, 'retention-old.localhost');
    const recent = await failedOrder(20, 'retention-recent.localhost');
    const left = async (table: string, column: string, value: string) =>
      (await db.query(`SELECT 1 FROM protocol_frontends.${table} WHERE ${column} = $1`, [value])).rowCount;
    await eventually(
      async () => (await left('acme_orders', 'id', old.order)) === 0,
      'the sweep to purge the old order',
    );
    await eventually(
      async () => (await left('acme_authorizations', 'id', old.authorization)) === 0,
      'the sweep to purge its authorization',
    );
    // Challenges go in the authorization's statement (ON DELETE CASCADE); attempts in a later step
    // of the same pass, committed on its own: waited for, not assumed.
    expect(await left('acme_challenges', 'id', old.challenge)).toBe(0);
    await eventually(
      async () => (await left('acme_validation_attempts', 'challenge_id', old.challenge)) === 0,
      'the sweep to purge its validation attempt',
    );
    for (const [table, column, value] of [
      ['acme_orders', 'id', recent.order],
      ['acme_authorizations', 'id', recent.authorization],
      ['acme_challenges', 'id', recent.challenge],
      ['acme_validation_attempts', 'challenge_id', recent.challenge],
    ])
      expect(await left(table, column, value)).toBe(1);
    // What operators see follows: the old order is gone from the API, the recent one is listed.
    const listed = (
      await api('GET', `/api/v1/admin/acme/orders?account_id=${account}`)
    ).json() as Page<AcmeOrderDto>;
    expect(listed.data.map((o) => o.id)).toEqual([recent.order]);
  }, 60_000);

  it('ADR 0075: revoking the CA that issued ACME certificates moves their renewal windows to now (RFC 9773 4.2)', async () => {
    const issuing = async (name: string) => {
      const created = await api('POST', '/api/v1/intermediate-cas', {
        issuer_id: 'iss-local',
        parent_id: 'ca-local-root',
        common_name: name,
        path_length: 0,
        issuing: true,
      });
      expect(created.status).toBe(201);
      return (created.json() as { id: string }).id;
    };
    const teamCa = await issuing('ACME Team CA');
    const c = await TestAcmeClient.create(directoryUrl, system.ca);
    await c.register();
    const { orderUrl, orderJson } = await orderAndValidate(c, 'ca-revoked.localhost');
    await pollUntil(c, orderUrl, (json) => json.status === 'ready');
    const finalized = await c.post(orderJson.finalize, { csr: csrFor({ dns: ['ca-revoked.localhost'] }) });
    expect(finalized.json.status).toBe('valid');
    const leaf = parseCertificates((await c.post(finalized.json.certificate, '')).text)[0];
    const certId = `${leaf.decoded.authorityKeyIdentifier!.toString('base64url')}.${leaf.serialBytes.toString('base64url')}`;
    const other = await insertCertificate(c.kid!.split('/').pop()!);
    const otherBefore = (await renewalInfoOf(other.renewalId)).json;
    const before = (await renewalInfoOf(certId)).json;
    expect(Date.parse(before.suggestedWindow.start)).toBeGreaterThan(Date.now() + 86_400_000);

    const revoked = await api('POST', `/api/v1/intermediate-cas/${teamCa}/revoke`, {
      reason: 'keyCompromise',
    });
    expect(revoked.status).toBe(200);
    await eventually(
      async () => Date.parse((await renewalInfoOf(certId)).json.suggestedWindow.start) <= Date.now(),
      'the renewal window of the revoked CA certificate moved to now',
    );
    const after = (await renewalInfoOf(certId)).json;
    expect(after.explanationURL).toBe(REVOKED_EXPLANATION);
    expect(Date.parse(after.suggestedWindow.end)).toBeLessThanOrEqual(Date.now() + 3_600_000);
    // A certificate of another CA keeps its window.
    expect((await renewalInfoOf(other.renewalId)).json).toEqual(otherBefore);
    const byCaRevocation = async () =>
      (
        (
          await api('GET', '/api/v1/audit?action=acme.certificate_bulk_renew_early&per_page=100')
        ).json() as Page<AuditEventDto>
      ).data
        .map((event) => event.details as { criteria?: { ca_id?: string }; total_moved?: number })
        .filter((details) => details.criteria?.ca_id === teamCa);
    await eventually(
      async () => (await byCaRevocation()).length > 0,
      'the audit record of the CA revocation',
    );
    expect(await byCaRevocation()).toEqual([expect.objectContaining({ total_moved: 1 })]);
    // Issuance goes on under a new issuing CA.
    await issuing('ACME Team CA 2');
  }, 60_000);
});
