import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ApprovalDto, Page } from '@certlane/contracts';
import { parseCertificates } from '@certlane/pki';
import {
  BindServer,
  eventually,
  freePort,
  httpsRequest,
  HttpsResult,
  ServiceProcess,
  startBind,
  startServiceProcess,
  startTestSystem,
  testNatsUrl,
  TestSystem,
} from '@certlane/testing';
import { connect } from 'nats';
import { Client } from 'pg';
import { streamFor } from '@certlane/platform';
import { ACME_APPROVAL_CONSUMER } from './acme-approval-follower';
import { csrFor, Http01Responder, TestAcmeClient } from './testing/acme-test-client';

const urn = (type: string) => `urn:ietf:params:acme:error:${type}`;

/**
 * Finalize under a certificate profile requiring approval (RFC 8555 7.4; ADR 0065 and the ADR 0068
 * amendment) with real processes: the order is processing (with Retry-After) while an enrollment
 * approval of issuance holds its CSR; an admin decides it through `/api/v1/approvals/{id}/...`,
 * and the order's next poll is valid with the certificate issuance issued, or invalid.
 */
describe('ACME finalize waiting for an enrollment approval', () => {
  let system: TestSystem;
  let responder: Http01Responder;
  let db: Client;
  let http01Port: number;
  /** A second replica of protocol-frontends on the same database and bus. */
  let second: ServiceProcess;
  /** The DNS server of the CAA lookups of profile `held-caa` (no CAA records: issuance permitted). */
  let bind: BindServer;

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

  /** The enrollment approvals an order opened. */
  const approvalsOf = async (orderUrl: string): Promise<ApprovalDto[]> => {
    const orderId = orderUrl.split('/').pop();
    const page = (
      await api('GET', '/api/v1/approvals?approval_kind=cert_issuance&per_page=100')
    ).json() as Page<ApprovalDto>;
    return page.data.filter((a) => a.enrollment?.reference.order_id === orderId);
  };

  beforeAll(async () => {
    http01Port = await freePort();
    bind = await startBind('localhost', await freePort());
    system = await startTestSystem(
      'acmeapproval',
      ['auth', 'api-gateway', 'issuance', 'protocol-frontends'],
      {
        SERVICE_ACME_HTTP01_PORT: String(http01Port),
        SERVICE_ACME_DNS_RESOLVERS: bind.address,
      },
    );
    second = await startServiceProcess('protocol-frontends', system.env, { ca: system.ca });
    responder = await Http01Responder.start(http01Port);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const held = await api('POST', '/api/v1/profiles', {
      id: 'acme-held',
      name: 'ACME held for approval',
      requires_approval: true,
      must_staple: true,
      validity_days: 20,
    });
    expect(held.status).toBe(201);
    const profile = await api('POST', '/api/v1/admin/acme/profiles', {
      id: 'held',
      certificate_profile_id: 'acme-held',
    });
    expect(profile.status).toBe(201);
    const checked = await api('POST', '/api/v1/admin/acme/profiles', {
      id: 'held-caa',
      certificate_profile_id: 'acme-held',
      caa_identities: ['certlane.test'],
    });
    expect(checked.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await responder?.stop();
    await second?.stop();
    await system?.stop();
    await bind?.stop();
  });

  async function pollUntil(c: TestAcmeClient, url: string, done: (json: { status: string }) => boolean) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const answer = await c.post(url, '');
      if (done(answer.json)) return answer;
      if (Date.now() > deadline) throw new Error(`${url} never reached the expected state`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * An order of profile `held` for `name` (by a new account unless `by` is given), finalized:
   * processing, waiting for its approval.
   */
  async function heldOrder(name: string, by?: TestAcmeClient, profile = 'held') {
    const c =
      by ??
      (await TestAcmeClient.create(
        `${system.services['protocol-frontends'].url}/acme/profile/${profile}/directory`,
        system.ca,
      ));
    const account = await c.register();
    expect(account.status).toBe(by ? 200 : 201);
    const order = await c.post((await c.directory()).newOrder, {
      identifiers: [{ type: 'dns', value: name }],
    });
    expect(order.status).toBe(201);
    const orderUrl = order.headers.location as string;
    const authz = (await c.post(order.json.authorizations[0], '')).json;
    const challenge = authz.challenges.find((ch: { type: string }) => ch.type === 'http-01');
    responder.answers.set(challenge.token, await c.keyAuthorization(challenge.token));
    expect((await c.post(challenge.url, {})).status).toBe(200);
    expect((await pollUntil(c, orderUrl, (json) => json.status !== 'pending')).json.status).toBe('ready');
    const finalized = await c.post(order.json.finalize, { csr: csrFor({ dns: [name] }) });
    return {
      c,
      orderUrl,
      finalizeUrl: order.json.finalize as string,
      finalized,
      accountUrl: account.headers.location,
    };
  }

  it('RFC 8555 7.4: finalize answers processing with Retry-After and opens one enrollment approval; a second finalize is orderNotReady and opens none', async () => {
    const { c, orderUrl, finalizeUrl, finalized, accountUrl } = await heldOrder('held-wait.localhost');
    expect([finalized.status, finalized.json.status]).toEqual([200, 'processing']);
    expect(finalized.headers['retry-after']).toBe('10');
    expect(finalized.headers.location).toBe(orderUrl);
    expect(finalized.json.certificate).toBeUndefined();

    const polled = await c.post(orderUrl, '');
    expect([polled.json.status, polled.headers['retry-after']]).toEqual(['processing', '10']);

    const again = await c.post(finalizeUrl, { csr: csrFor({ dns: ['held-wait.localhost'] }) });
    expect([again.status, again.json.type]).toEqual([403, urn('orderNotReady')]);

    const approvals = await approvalsOf(orderUrl);
    expect(approvals).toEqual([
      expect.objectContaining({
        approval_kind: 'cert_issuance',
        status: 'pending',
        profile_id: 'acme-held',
        requested_by: `acme-account:${String(accountUrl).split('/').pop()}`,
        enrollment: expect.objectContaining({
          source: 'ACME',
          state: 'pending',
          dns_names: ['held-wait.localhost'],
          reference: { acme_profile: 'held', order_id: orderUrl.split('/').pop() },
        }),
      }),
    ]);
    // Operators see which approval the order waits for.
    const operatorView = await api('GET', `/api/v1/admin/acme/orders/${orderUrl.split('/').pop()}`);
    expect(operatorView.json()).toMatchObject({ status: 'processing', approval_id: approvals[0].id });
  });

  it("CA/B BR 3.2.2.8: under a profile checking CAA, the approval lasts 8 hours (issuance within a CAA check's life); without, issuance's default", async () => {
    const checked = await heldOrder('held-caa.localhost', undefined, 'held-caa');
    expect(checked.finalized.json.status).toBe('processing');
    const [approval] = await approvalsOf(checked.orderUrl);
    const expiresIn = Date.parse(approval.enrollment!.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(8 * 3600_000 - 120_000);
    expect(expiresIn).toBeLessThanOrEqual(8 * 3600_000);
    // What the approver sees is what will be certified: the common name only, the order's names.
    expect(approval.enrollment).toMatchObject({
      subject: 'CN=held-caa.localhost',
      dns_names: ['held-caa.localhost'],
    });

    const plain = await heldOrder('held-plain.localhost');
    const [unchecked] = await approvalsOf(plain.orderUrl);
    expect(Date.parse(unchecked.enrollment!.expires_at) - Date.now()).toBeGreaterThan(24 * 3600_000);
  });

  it("RFC 8555 7.1.3: once approved, the polled order is valid with its certificate (issued once, with the profile's must-staple and validity) to download", async () => {
    const { c, orderUrl } = await heldOrder('held-ok.localhost');
    const [approval] = await approvalsOf(orderUrl);
    const approved = await api('POST', `/api/v1/approvals/${approval.id}/approve`, { reason: 'known host' });
    expect(approved.status).toBe(200);
    const decided = approved.json() as ApprovalDto;
    expect(decided.enrollment?.state).toBe('issued');

    // Two polls at once, one to each replica: both see valid, one certificate is stored.
    const onSecond = orderUrl.replace(new URL(orderUrl).origin, new URL(second.url).origin);
    const polls = await Promise.all([c.post(orderUrl, ''), c.post(onSecond, '', { url: onSecond })]);
    for (const poll of polls) {
      expect([poll.status, poll.json.status]).toEqual([200, 'valid']);
      expect(poll.headers['retry-after']).toBeUndefined();
    }
    expect(new URL(polls[1].json.certificate).pathname).toBe(new URL(polls[0].json.certificate).pathname);
    const stored = await db.query(
      `SELECT serial_hex, certificate_id FROM protocol_frontends.acme_certificates WHERE order_id = $1`,
      [orderUrl.split('/').pop()],
    );
    expect(stored.rows).toEqual([
      { serial_hex: decided.enrollment!.serial_hex, certificate_id: decided.certificate_id },
    ]);

    const download = await c.post(polls[0].json.certificate, '');
    expect(download.status).toBe(200);
    const chain = parseCertificates(download.text);
    expect(chain.length).toBeGreaterThanOrEqual(2);
    const leaf = new X509Certificate(download.text);
    expect(leaf.subjectAltName).toBe('DNS:held-ok.localhost');
    expect(BigInt(`0x${chain[0].serialNumber}`)).toBe(BigInt(`0x${decided.enrollment!.serial_hex}`));
    expect(leaf.checkIssued(new X509Certificate(chain[1].der))).toBe(true);
    expect(chain[0].decoded.mustStaple).toBe(true);
    const lifetimeDays = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 86_400_000;
    expect(lifetimeDays).toBeLessThanOrEqual(20.05);

    const inventory = await db.query(`SELECT source FROM issuance.certificates WHERE id = $1`, [
      decided.certificate_id,
    ]);
    expect(inventory.rows).toEqual([{ source: 'ACME' }]);
  });

  it('RFC 9773 5: an approved renewal (the same identifiers ordered again) is the next version of the inventory certificate', async () => {
    const approveAndPoll = async (c: TestAcmeClient, orderUrl: string) => {
      const [approval] = await approvalsOf(orderUrl);
      const approved = await api('POST', `/api/v1/approvals/${approval.id}/approve`);
      expect(approved.status).toBe(200);
      expect((await c.post(orderUrl, '')).json.status).toBe('valid');
      return approved.json() as ApprovalDto;
    };
    const first = await heldOrder('held-renew.localhost');
    const one = await approveAndPoll(first.c, first.orderUrl);
    const second = await heldOrder('held-renew.localhost', first.c);
    const two = await approveAndPoll(second.c, second.orderUrl);
    expect(two.certificate_id).toBe(one.certificate_id);
    const versions = await db.query(
      'SELECT count(*)::int AS n FROM issuance.certificate_versions WHERE certificate_id = $1',
      [one.certificate_id],
    );
    expect(versions.rows[0].n).toBe(2);
    const replaced = await db.query(
      `SELECT old.replaced_by_id = new.id AS linked FROM protocol_frontends.acme_certificates old,
         protocol_frontends.acme_certificates new WHERE old.order_id = $1 AND new.order_id = $2`,
      [first.orderUrl.split('/').pop(), second.orderUrl.split('/').pop()],
    );
    expect(replaced.rows).toEqual([{ linked: true }]);
  });

  it('RFC 8555 7.1.6: a rejected approval makes the order invalid with an error naming the reason', async () => {
    const { c, orderUrl } = await heldOrder('held-no.localhost');
    const [approval] = await approvalsOf(orderUrl);
    const rejected = await api('POST', `/api/v1/approvals/${approval.id}/reject`, { reason: 'unknown host' });
    expect(rejected.status).toBe(200);
    const polled = await c.post(orderUrl, '');
    expect([polled.status, polled.json.status]).toEqual([200, 'invalid']);
    expect(polled.json.error).toMatchObject({ type: urn('unauthorized'), status: 403 });
    expect(polled.json.error.detail).toContain('rejected by an approver: unknown host');
    expect(polled.json.certificate).toBeUndefined();
    expect(polled.headers['retry-after']).toBeUndefined();
  });

  it('RFC 8555 7.1.6: an approval decided while the client is away moves its order without a poll: approved -> valid with its certificate stored, rejected -> invalid', async () => {
    const kept = await heldOrder('held-away.localhost');
    const refused = await heldOrder('held-away-no.localhost');
    const [toApprove] = await approvalsOf(kept.orderUrl);
    const [toReject] = await approvalsOf(refused.orderUrl);
    const approved = await api('POST', `/api/v1/approvals/${toApprove.id}/approve`);
    expect(approved.status).toBe(200);
    expect(
      (await api('POST', `/api/v1/approvals/${toReject.id}/reject`, { reason: 'gone away' })).status,
    ).toBe(200);
    const stored = async (orderUrl: string) =>
      (
        await db.query(
          `SELECT o.status, o.error, c.serial_hex FROM protocol_frontends.acme_orders o
             LEFT JOIN protocol_frontends.acme_certificates c ON c.order_id = o.id WHERE o.id = $1`,
          [orderUrl.split('/').pop()],
        )
      ).rows[0] as { status: string; error: { detail: string } | null; serial_hex: string | null };
    await eventually(
      async () => (await stored(kept.orderUrl)).status === 'valid',
      'the approved order valid',
    );
    await eventually(
      async () => (await stored(refused.orderUrl)).status === 'invalid',
      'the rejected order invalid',
    );
    expect((await stored(kept.orderUrl)).serial_hex).toBe(
      (approved.json() as ApprovalDto).enrollment!.serial_hex,
    );
    expect((await stored(refused.orderUrl)).error?.detail).toContain('rejected by an approver: gone away');
    // The client coming back finds them as they were left, the certificate ready to download.
    const polled = await kept.c.post(kept.orderUrl, '');
    expect([polled.status, polled.json.status]).toEqual([200, 'valid']);
    expect((await kept.c.post(polled.json.certificate, '')).status).toBe(200);
    expect((await refused.c.post(refused.orderUrl, '')).json.status).toBe('invalid');
  });

  it('RFC 8555 7.1.6: an approval decided while its event was missed moves the order once the order expires (the sweep asks issuance)', async () => {
    const missed = await heldOrder('held-missed.localhost');
    const orderId = missed.orderUrl.split('/').pop();
    const [approval] = await approvalsOf(missed.orderUrl);
    let serial = '';
    const row = async () =>
      (
        await db.query(
          `SELECT o.status, c.serial_hex FROM protocol_frontends.acme_orders o
             LEFT JOIN protocol_frontends.acme_certificates c ON c.order_id = o.id WHERE o.id = $1`,
          [orderId],
        )
      ).rows[0] as { status: string; serial_hex: string | null };
    // The order names no approval while the decision's event is handled, so the event moves nothing.
    await db.query(`UPDATE protocol_frontends.acme_orders SET approval_id = 'elsewhere' WHERE id = $1`, [
      orderId,
    ]);
    const nats = await connect({ servers: testNatsUrl() });
    try {
      const jsm = await nats.jetstreamManager();
      const consumer = () =>
        jsm.consumers.info(
          streamFor('issuance.v1.approval.decided', system.env.SERVICE_NATS_NAMESPACE).name,
          ACME_APPROVAL_CONSUMER,
        );
      const before = (await consumer()).delivered.stream_seq;
      const approved = await api('POST', `/api/v1/approvals/${approval.id}/approve`);
      expect(approved.status).toBe(200);
      serial = (approved.json() as ApprovalDto).enrollment!.serial_hex!;
      await eventually(async () => {
        const state = await consumer();
        return state.delivered.stream_seq > before && state.num_pending + state.num_ack_pending === 0;
      }, 'the followers to have handled the decision');
    } finally {
      await nats.close();
    }
    expect((await row()).status).toBe('processing');
    await db.query(
      `UPDATE protocol_frontends.acme_orders SET approval_id = $2, expires_at = now() - interval '1 minute' WHERE id = $1`,
      [orderId, approval.id],
    );
    await eventually(async () => (await row()).status === 'valid', 'the sweep to move the order', 30_000);
    expect((await row()).serial_hex).toBe(serial);
    const polled = await missed.c.post(missed.orderUrl, '');
    expect([polled.status, polled.json.status]).toEqual([200, 'valid']);
  }, 60_000);

  it('RFC 8555 7.1.6: an order a finalize left processing (its replica stopped) ends invalid with serverInternal once no finalize can still be running', async () => {
    const { c, orderUrl } = await heldOrder('held-stopped.localhost');
    const orderId = orderUrl.split('/').pop();
    // As a finalize leaves it when its replica stops before storing the certificate: processing,
    // no approval, taken 11 minutes ago (beyond four bus timeouts and ten minutes).
    await db.query(
      `UPDATE protocol_frontends.acme_orders SET approval_id = NULL, updated_at = now() - interval '11 minutes' WHERE id = $1`,
      [orderId],
    );
    const recent = await heldOrder('held-running.localhost');
    await db.query(`UPDATE protocol_frontends.acme_orders SET approval_id = NULL WHERE id = $1`, [
      recent.orderUrl.split('/').pop(),
    ]);
    let polled = await c.post(orderUrl, '');
    const deadline = Date.now() + 30_000;
    while (polled.json.status === 'processing' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      polled = await c.post(orderUrl, '');
    }
    expect(polled.json.status).toBe('invalid');
    expect(polled.json.error).toMatchObject({
      type: urn('serverInternal'),
      detail: expect.stringContaining('interrupted'),
    });
    // One a finalize took just now is left to it.
    expect((await recent.c.post(recent.orderUrl, '')).json.status).toBe('processing');
  }, 60_000);

  it('RFC 8555 7.3.6: an account deactivating itself ends its order waiting for an approval, and the approval is withdrawn: nothing can be issued for it', async () => {
    const { c, orderUrl, accountUrl } = await heldOrder('held-gone.localhost');
    const [approval] = await approvalsOf(orderUrl);
    expect(approval.status).toBe('pending');
    expect((await c.post(accountUrl as string, { status: 'deactivated' })).status).toBe(200);
    const order = (await api('GET', `/api/v1/admin/acme/orders/${orderUrl.split('/').pop()}`)).json() as {
      status: string;
      error: { type: string; detail: string };
      authorizations: { status: string }[];
    };
    expect(order.status).toBe('invalid');
    expect(order.authorizations.map((a) => a.status)).toEqual(['deactivated']);
    expect(order.error).toMatchObject({
      type: urn('unauthorized'),
      detail: expect.stringContaining('deactivated'),
    });
    const [withdrawn] = await approvalsOf(orderUrl);
    expect(withdrawn).toMatchObject({
      status: 'rejected',
      decided_by: expect.stringMatching(/^acme-account:/),
    });
    const approve = await api('POST', `/api/v1/approvals/${approval.id}/approve`);
    expect([approve.status, (approve.json() as { code: string }).code]).toEqual([
      409,
      'approval_not_pending',
    ]);
  });

  it('RFC 8555 7.1.6: an approval nobody decided before its deadline makes the order invalid', async () => {
    const { c, orderUrl } = await heldOrder('held-late.localhost');
    const [approval] = await approvalsOf(orderUrl);
    await db.query(
      `UPDATE issuance.approvals SET enrollment_expires_at = now() - interval '1 minute' WHERE id = $1`,
      [approval.id],
    );
    const polled = await c.post(orderUrl, '');
    expect(polled.json.status).toBe('invalid');
    expect(polled.json.error.detail).toContain('not approved before its deadline');
  });

  // The cross-certificate it makes gives every later certificate of the issuer an alternate.
  it('RFC 8555 7.4.2: an approved order is served with the chain issuance issued it with and, through a cross-certificate of the issuing CA, its alternate chain (as without approval)', async () => {
    const issuer = (await api('GET', '/api/v1/issuers/iss-local')).json() as { issuing_ca_id: string };
    const root2 = await api('POST', '/api/v1/intermediate-cas', {
      issuer_id: 'iss-local',
      common_name: 'Certlane Approval Cross Root',
    });
    expect(root2.status).toBe(201);
    const root2Pem = (root2.json() as { id: string; certificate_pem: string }).certificate_pem;
    const cross = await api('POST', `/api/v1/intermediate-cas/${issuer.issuing_ca_id}/cross-certificates`, {
      parent_id: (root2.json() as { id: string }).id,
    });
    expect(cross.status).toBe(201);

    const { c, orderUrl } = await heldOrder('held-alternate.localhost');
    const [approval] = await approvalsOf(orderUrl);
    expect((await api('POST', `/api/v1/approvals/${approval.id}/approve`)).status).toBe(200);
    const valid = await c.post(orderUrl, '');
    expect(valid.json.status).toBe('valid');
    const certificateUrl = valid.json.certificate as string;

    // The default chain is the one issuance built and kept with the approval (not a list of the
    // issuer's CAs): the issuing CA first, each certificate issued by the next.
    const kept = await db.query<{ chain: string; alternates: string[] }>(
      `SELECT enrollment_chain_pem AS chain, enrollment_alternate_chains AS alternates
         FROM issuance.approvals WHERE id = $1`,
      [approval.id],
    );
    const download = await c.post(certificateUrl, '');
    expect(download.status).toBe(200);
    expect(kept.rows[0].chain).toContain('BEGIN CERTIFICATE');
    expect(download.text.endsWith(kept.rows[0].chain)).toBe(true);
    const chain = parseCertificates(download.text).map((cert) => new X509Certificate(cert.der));
    chain.slice(1).forEach((ca, i) => expect(chain[i].checkIssued(ca)).toBe(true));

    // One alternate, through the cross-certificate, linked and served like any ACME alternate.
    expect(kept.rows[0].alternates).toHaveLength(1);
    expect(download.headers.link).toContain(`<${certificateUrl}/1>;rel="alternate"`);
    const alternate = await c.post(`${certificateUrl}/1`, '');
    expect(alternate.status).toBe(200);
    const alternateChain = parseCertificates(alternate.text).map((cert) => new X509Certificate(cert.der));
    expect(alternateChain[0].fingerprint256).toBe(chain[0].fingerprint256);
    expect(alternateChain.at(-1)!.verify(new X509Certificate(root2Pem).publicKey)).toBe(true);
  });

  it('certbot (unmodified) waits while the order is processing and gets the certificate once an admin approves', async () => {
    // certbot's standalone http-01 server takes the port the test responder held.
    await responder.stop();
    const work = mkdtempSync(join(tmpdir(), 'certlane-acme-approval-'));
    try {
      const caFile = join(work, 'ca.pem');
      writeFileSync(caFile, system.ca);
      const dirs = ['config', 'work', 'logs'].map((d) => join(work, d));
      const certbot = promisify(execFile)(
        'certbot',
        [
          'certonly',
          '--non-interactive',
          '--server',
          `${system.services['protocol-frontends'].url}/acme/profile/held/directory`,
          ...['--config-dir', dirs[0], '--work-dir', dirs[1], '--logs-dir', dirs[2]],
          '--standalone',
          '--agree-tos',
          '--register-unsafely-without-email',
          ...['--http-01-port', String(http01Port), '--http-01-address', '127.0.0.1'],
          ...['-d', 'certbot-held.localhost'],
        ],
        { env: { ...process.env, REQUESTS_CA_BUNDLE: caFile }, timeout: 90_000 },
      );
      // certbot polls the processing order every second (its deadline is 90 s): approve meanwhile.
      const deadline = Date.now() + 60_000;
      let approval: ApprovalDto | undefined;
      while (!approval) {
        if (Date.now() > deadline) throw new Error('certbot never opened an approval');
        const page = (
          await api('GET', '/api/v1/approvals?approval_kind=cert_issuance&status=pending&per_page=100')
        ).json() as Page<ApprovalDto>;
        approval = page.data.find((a) => a.enrollment?.dns_names.includes('certbot-held.localhost'));
        if (!approval) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const orderId = approval.enrollment!.reference.order_id;
      const waiting = await db.query(`SELECT status FROM protocol_frontends.acme_orders WHERE id = $1`, [
        orderId,
      ]);
      expect(waiting.rows).toEqual([{ status: 'processing' }]);
      expect((await api('POST', `/api/v1/approvals/${approval.id}/approve`)).status).toBe(200);
      await certbot;

      const live = join(
        dirs[0],
        'live',
        readdirSync(join(dirs[0], 'live')).find((n) => n.startsWith('certbot'))!,
      );
      const pem = readFileSync(join(live, 'cert.pem'), 'utf8');
      expect(new X509Certificate(pem).subjectAltName).toBe('DNS:certbot-held.localhost');
      expect(parseCertificates(pem)[0].decoded.mustStaple).toBe(true);
      expect(readFileSync(join(live, 'chain.pem'), 'utf8')).toContain('BEGIN CERTIFICATE');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 120_000);
});
