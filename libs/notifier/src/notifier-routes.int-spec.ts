import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { NotifierDto, NotifierTestResult, Page } from '@certlane/contracts';
import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const TOKEN = 'tok-9f3c1e77aa';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * /api/v1/notifiers through the real gateway, auth and notifier processes: CRUD with the secrets
 * write-only (never in any answer, sealed at rest), and a test send through the real webhook
 * connector to a loopback receiver allow-listed by SERVICE_NOTIFIER_ALLOWED_NETWORKS.
 */
describe('notifier routes', () => {
  let system: TestSystem;
  let db: Client;
  let receiver: Server;
  let hookUrl: string;
  let answerStatus = 204;
  const received: Received[] = [];
  const answers: string[] = [];
  let gateway: string;

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await httpsRequest(`${gateway}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      ca: system.ca,
    });
    answers.push(response.text);
    return response;
  };

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(answerStatus).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook?token=${TOKEN}`;
    system = await startTestSystem('notifiers', ['auth', 'notifier', 'api-gateway'], {
      SERVICE_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.1',
    });
    gateway = system.services['api-gateway'].url;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('creates a webhook notifier: 201, the secrets answered by name only and sealed at rest', async () => {
    const created = await call('POST', '/api/v1/notifiers', {
      id: 'ops-hook',
      name: 'Ops hook',
      kind: 'webhook',
      secrets: { url: hookUrl, secret: SECRET },
    });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({
      id: 'ops-hook',
      name: 'Ops hook',
      kind: 'webhook',
      settings: {},
      secret_fields: ['secret', 'url'],
      enabled: true,
    });
    const [row] = (await db.query(`SELECT sealed_secrets FROM notifier.notifiers WHERE id = 'ops-hook'`))
      .rows as { sealed_secrets: string }[];
    expect(row.sealed_secrets).not.toContain(TOKEN);
    expect(row.sealed_secrets).not.toContain(SECRET.slice(6));
  });

  it('lists and gets it without the secrets', async () => {
    const list = await call('GET', '/api/v1/notifiers');
    expect(list.status).toBe(200);
    const page = list.json() as Page<NotifierDto>;
    expect(page.total).toBe(1);
    expect(page.data[0]).toMatchObject({ id: 'ops-hook', secret_fields: ['secret', 'url'] });
    const one = await call('GET', '/api/v1/notifiers/ops-hook');
    expect(one.status).toBe(200);
    expect(one.json()).toMatchObject({ id: 'ops-hook', kind: 'webhook' });
  });

  it('test-sends through the real connector: the receiver gets a signed notifier.test message', async () => {
    const tested = await call('POST', '/api/v1/notifiers/ops-hook/test');
    expect(tested.status).toBe(200);
    expect(tested.json()).toEqual({ delivered: true, error: null });
    expect(received).toHaveLength(1);
    const got = received[0];
    const payload = new Webhook(SECRET).verify(got.body, {
      'webhook-id': got.headers['webhook-id'] as string,
      'webhook-timestamp': got.headers['webhook-timestamp'] as string,
      'webhook-signature': got.headers['webhook-signature'] as string,
    }) as { type: string; data: { severity: string; title: string } };
    expect(payload.type).toBe('notifier.test');
    expect(payload.data.title).toContain('Ops hook');
  });

  it('a failing receiver is reported, not thrown: delivered false with the reason', async () => {
    answerStatus = 500;
    const tested = await call('POST', '/api/v1/notifiers/ops-hook/test');
    answerStatus = 204;
    expect(tested.status).toBe(200);
    const result = tested.json() as NotifierTestResult;
    expect(result.delivered).toBe(false);
    expect(result.error).toContain('500');
    expect(received).toHaveLength(2);
  });

  it('refuses a reserved address that is not allow-listed, at dial time', async () => {
    const created = await call('POST', '/api/v1/notifiers', {
      id: 'metadata-hook',
      name: 'Metadata hook',
      kind: 'webhook',
      secrets: { url: 'http://169.254.169.254/latest/meta-data', secret: SECRET },
    });
    expect(created.status).toBe(201);
    const result = (await call('POST', '/api/v1/notifiers/metadata-hook/test')).json() as NotifierTestResult;
    expect(result.delivered).toBe(false);
    expect(result.error).toMatch(/169\.254\.169\.254/);
    expect(received).toHaveLength(2);
  });

  it('updates: omitted secrets are kept, new ones are checked by the connector', async () => {
    const renamed = await call('PUT', '/api/v1/notifiers/ops-hook', { name: 'Ops webhook', enabled: false });
    expect(renamed.status).toBe(200);
    expect(renamed.json()).toMatchObject({
      name: 'Ops webhook',
      enabled: false,
      secret_fields: ['secret', 'url'],
    });
    const bad = await call('PUT', '/api/v1/notifiers/ops-hook', {
      secrets: { url: hookUrl, secret: 'plain' },
    });
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'notifier_config_invalid' });
    // A disabled notifier still test-sends (that is how one is checked before enabling it).
    expect(
      ((await call('POST', '/api/v1/notifiers/ops-hook/test')).json() as NotifierTestResult).delivered,
    ).toBe(true);
    expect(received).toHaveLength(3);
  });

  it('refuses settings keys the kind does not read: 400 validation_failed naming the key, never the value', async () => {
    const misplaced = 'tok-misplaced-7c1d9e';
    const webhook = await call('POST', '/api/v1/notifiers', {
      id: 'leaky-hook',
      name: 'Leaky hook',
      kind: 'webhook',
      settings: { max_concurrent: 2, api_token: misplaced },
      secrets: { url: hookUrl, secret: SECRET },
    });
    expect(webhook.status).toBe(400);
    expect(webhook.json()).toMatchObject({
      code: 'validation_failed',
      details: { fields: [{ field: 'settings.api_token' }] },
    });
    expect(webhook.text).not.toContain(misplaced);
    // Per kind: OpsGenie reads region and api_url, not a password.
    const genie = await call('POST', '/api/v1/notifiers', {
      id: 'leaky-genie',
      name: 'Leaky genie',
      kind: 'opsgenie',
      settings: { region: 'eu', password: misplaced },
      secrets: { api_key: 'genie-key-0123456789' },
    });
    expect(genie.status).toBe(400);
    expect((genie.json() as { details: { fields: { field: string }[] } }).details.fields).toEqual([
      expect.objectContaining({ field: 'settings.password' }),
    ]);
    expect(genie.text).not.toContain(misplaced);
    const update = await call('PUT', '/api/v1/notifiers/ops-hook', { settings: { url: misplaced } });
    expect(update.status).toBe(400);
    expect(update.json()).toMatchObject({ code: 'validation_failed' });
    expect(update.text).not.toContain(misplaced);
    expect((await db.query(`SELECT 1 FROM notifier.notifiers WHERE id LIKE 'leaky-%'`)).rowCount).toBe(0);
  });

  it('a row stored with an unknown setting still reads and sends; the key is not answered and goes on update', async () => {
    const legacy = 'tok-legacy-51ab0f';
    await db.query(`UPDATE notifier.notifiers SET settings = $1 WHERE id = 'ops-hook'`, [
      JSON.stringify({ max_concurrent: 2, api_token: legacy }),
    ]);
    const one = await call('GET', '/api/v1/notifiers/ops-hook');
    expect(one.status).toBe(200);
    expect((one.json() as NotifierDto).settings).toEqual({ max_concurrent: 2 });
    expect((await call('GET', '/api/v1/notifiers')).text).not.toContain(legacy);
    expect(one.text).not.toContain(legacy);
    const tested = (await call('POST', '/api/v1/notifiers/ops-hook/test')).json() as NotifierTestResult;
    expect(tested).toEqual({ delivered: true, error: null });
    const renamed = await call('PUT', '/api/v1/notifiers/ops-hook', { name: 'Ops webhook' });
    expect(renamed.status).toBe(200);
    const [row] = (await db.query(`SELECT settings FROM notifier.notifiers WHERE id = 'ops-hook'`)).rows as {
      settings: Record<string, unknown>;
    }[];
    expect(row.settings).toEqual({ max_concurrent: 2 });
  });

  it('an update that moves where the stored secrets go (OpsGenie api_url) must bring them again', async () => {
    const origin = hookUrl.split('/hook')[0];
    const created = await call('POST', '/api/v1/notifiers', {
      id: 'genie',
      name: 'Genie',
      kind: 'opsgenie',
      settings: { api_url: `${origin}/genie` },
      secrets: { api_key: 'genie-key-0123456789' },
    });
    expect(created.status).toBe(201);
    const moved = await call('PUT', '/api/v1/notifiers/genie', {
      settings: { api_url: `${origin}/elsewhere` },
    });
    expect(moved.status).toBe(400);
    expect(moved.json()).toMatchObject({ code: 'notifier_config_invalid', details: { fields: ['api_url'] } });
    expect((await call('GET', '/api/v1/notifiers/genie')).json()).toMatchObject({
      settings: { api_url: `${origin}/genie` },
    });
    // Other changes go through as before, and the move does with the secrets sent again.
    expect((await call('PUT', '/api/v1/notifiers/genie', { name: 'Genie EU' })).status).toBe(200);
    const resent = await call('PUT', '/api/v1/notifiers/genie', {
      settings: { api_url: `${origin}/elsewhere` },
      secrets: { api_key: 'genie-key-0123456789' },
    });
    expect(resent.status).toBe(200);
    expect((await call('DELETE', '/api/v1/notifiers/genie')).status).toBe(204);
  });

  it('refuses a duplicate (409), an unknown kind and an invalid config (400)', async () => {
    const duplicate = await call('POST', '/api/v1/notifiers', {
      id: 'ops-hook',
      name: 'Another',
      kind: 'webhook',
      secrets: { url: hookUrl, secret: SECRET },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.json()).toMatchObject({ code: 'notifier_exists' });
    expect((await call('POST', '/api/v1/notifiers', { id: 'x', name: 'X', kind: 'fax' })).status).toBe(400);
    const invalid = await call('POST', '/api/v1/notifiers', {
      id: 'no-url',
      name: 'No URL',
      kind: 'webhook',
      secrets: { secret: SECRET },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.json()).toMatchObject({ code: 'notifier_config_invalid' });
    const limits = await call('POST', '/api/v1/notifiers', {
      id: 'too-fast',
      name: 'Too fast',
      kind: 'webhook',
      settings: { max_concurrent: 0 },
      secrets: { url: hookUrl, secret: SECRET },
    });
    expect(limits.status).toBe(400);
    expect(limits.json()).toMatchObject({ code: 'notifier_config_invalid' });
  });

  it('routing rules: create, list, get, update, delete; unknown notifiers and event types refused', async () => {
    const created = await call('POST', '/api/v1/routing-rules', {
      id: 'critical-to-ops',
      name: 'Critical to ops',
      event_types: ['certificate.expiring', 'deployment.failed'],
      min_severity: 'critical',
      environments: ['prod'],
      notifier_ids: ['ops-hook'],
    });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({
      id: 'critical-to-ops',
      enabled: true,
      min_severity: 'critical',
      owner_ids: [],
      notifier_ids: ['ops-hook'],
    });
    const [row] = (
      await db.query(`SELECT notifier_ids FROM notifier.routing_rules WHERE id = 'critical-to-ops'`)
    ).rows as { notifier_ids: string[] }[];
    expect(row.notifier_ids).toEqual(['ops-hook']);
    expect(
      (await call('POST', '/api/v1/routing-rules', { id: 'critical-to-ops', name: 'Again' })).status,
    ).toBe(409);
    const unknownNotifier = await call('POST', '/api/v1/routing-rules', {
      id: 'to-nowhere',
      name: 'To nowhere',
      notifier_ids: ['no-such-notifier'],
    });
    expect(unknownNotifier.status).toBe(400);
    expect(unknownNotifier.json()).toMatchObject({ code: 'reference_invalid' });
    const unknownType = await call('POST', '/api/v1/routing-rules', {
      id: 'odd-type',
      name: 'Odd type',
      event_types: ['certificate.melted'],
    });
    expect(unknownType.status).toBe(400);
    expect(
      (await call('POST', '/api/v1/routing-rules', { id: 'x', name: 'X', min_severity: 'dire' })).status,
    ).toBe(400);
    const list = (await call('GET', '/api/v1/routing-rules')).json() as Page<{ id: string }>;
    expect(list.data.map((rule) => rule.id)).toEqual(['critical-to-ops']);
    const updated = await call('PUT', '/api/v1/routing-rules/critical-to-ops', {
      min_severity: 'warning',
      team_ids: ['t1'],
    });
    expect(updated.status).toBe(200);
    expect(updated.json()).toMatchObject({
      min_severity: 'warning',
      team_ids: ['t1'],
      environments: ['prod'],
    });
    expect((await call('GET', '/api/v1/routing-rules/critical-to-ops')).json()).toMatchObject({
      team_ids: ['t1'],
    });
    expect((await call('DELETE', '/api/v1/routing-rules/critical-to-ops')).status).toBe(204);
    const gone = await call('GET', '/api/v1/routing-rules/critical-to-ops');
    expect(gone.status).toBe(404);
    expect(gone.json()).toMatchObject({ code: 'routing_rule_not_found' });
  });

  it('contacts: set (upsert, lowercased, deduplicated), list, get, delete; bad kind and address refused', async () => {
    const set = await call('PUT', '/api/v1/contacts/team/payments', {
      addresses: ['Ops@example.com', 'ops@example.com', 'oncall@example.com'],
    });
    expect(set.status).toBe(200);
    expect(set.json()).toEqual({
      kind: 'team',
      subject_id: 'payments',
      addresses: ['ops@example.com', 'oncall@example.com'],
    });
    const replaced = await call('PUT', '/api/v1/contacts/team/payments', { addresses: ['lead@example.com'] });
    expect(replaced.json()).toMatchObject({ addresses: ['lead@example.com'] });
    const [row] = (
      await db.query(
        `SELECT addresses FROM notifier.contacts WHERE kind = 'team' AND subject_id = 'payments'`,
      )
    ).rows as { addresses: string[] }[];
    expect(row.addresses).toEqual(['lead@example.com']);
    expect((await call('PUT', '/api/v1/contacts/group/payments', { addresses: [] })).status).toBe(400);
    expect(
      (await call('PUT', '/api/v1/contacts/owner/alice', { addresses: ['not-an-address'] })).status,
    ).toBe(400);
    const list = (await call('GET', '/api/v1/contacts')).json() as Page<{ subject_id: string }>;
    expect(list.data.map((contact) => contact.subject_id)).toEqual(['payments']);
    expect((await call('GET', '/api/v1/contacts/team/payments')).status).toBe(200);
    expect((await call('DELETE', '/api/v1/contacts/team/payments')).status).toBe(204);
    const gone = await call('GET', '/api/v1/contacts/team/payments');
    expect(gone.status).toBe(404);
    expect(gone.json()).toMatchObject({ code: 'contact_not_found' });
  });

  it('deletes: 204, then 404 notifier_not_found', async () => {
    expect((await call('DELETE', '/api/v1/notifiers/ops-hook')).status).toBe(204);
    const gone = await call('GET', '/api/v1/notifiers/ops-hook');
    expect(gone.status).toBe(404);
    expect(gone.json()).toMatchObject({ code: 'notifier_not_found' });
    expect((await call('POST', '/api/v1/notifiers/ops-hook/test')).status).toBe(404);
  });

  it('never answered a secret: no token, URL or signing key in any response', () => {
    expect(answers.length).toBeGreaterThan(10);
    for (const text of answers) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(SECRET.slice(6));
    }
  });
});
