import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { NotifierConnector, OutboundNotification } from './notifier-connector';
import { GuardedHttp } from './outbound/outbound-http';
import { networkList } from './outbound/reserved-addresses';
import { opsGenieConnector } from './opsgenie/opsgenie.connector';
import { pagerDutyConnector } from './pagerduty/pagerduty.connector';
import { slackConnector } from './slack/slack.connector';
import { teamsConnector } from './teams/teams.connector';

const expiring: OutboundNotification = {
  id: '0f7a3c1e-1111-4a2b-8c3d-5e6f7a8b9c0d',
  event_type: 'certificate.expiring',
  severity: 'critical',
  title: 'api.example.com expires in 6 days',
  dedup_key: 'certificate.expiring:cert-9:2026-11-30T00:00:00.000Z:7',
  certificate_id: 'cert-9',
  recipients: [],
  details: { common_name: 'api.example.com', days_remaining: 6, team: null },
  occurred_at: '2026-11-24T08:00:00.000Z',
};
const renewed: OutboundNotification = {
  ...expiring,
  id: '0f7a3c1e-2222-4a2b-8c3d-5e6f7a8b9c0d',
  event_type: 'certificate.renewed',
  severity: 'info',
  title: 'Certificate cert-9 was renewed',
  dedup_key: 'certificate.renewed:job-4:2026-11-24T09:00:00.000Z',
};

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  json: Record<string, unknown>;
}

/** A local stand-in for a vendor endpoint: `reply` gets the parsed request and answers. */
async function vendor(reply: (seen: Seen, res: ServerResponse, count: number) => unknown) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        json: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>,
      };
      seen.push(entry);
      reply(entry, res, seen.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, seen, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const http = new GuardedHttp({ allowed: networkList(['127.0.0.1']), timeoutMs: 2000 });
const NOW = new Date('2026-11-24T08:00:00.000Z');

function configOf<C>(
  connector: NotifierConnector<C>,
  settings: Record<string, unknown>,
  secrets: Record<string, unknown>,
): C {
  const config = connector.parse(settings, secrets);
  if (config && typeof config === 'object' && 'invalid' in config) throw new Error(String(config.invalid));
  return config as C;
}

describe('chat and incident notifiers against local servers speaking their formats', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it('Slack: Block Kit with a text fallback; 200 "ok"; 400 invalid_payload and 429 Retry-After are failures', async () => {
    const slack = await vendor((seen, res, n) => {
      if (n === 2)
        return res.writeHead(429, { 'retry-after': '30', 'content-type': 'text/plain' }).end('rate_limited');
      if (typeof seen.json.text !== 'string' || !Array.isArray(seen.json.blocks))
        return res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_payload');
      return res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    servers.push(slack.server);
    const config = configOf(slackConnector, {}, { webhook_url: `${slack.base}/services/T000/B000/XXXX` });
    expect(await slackConnector.send(config, expiring, http, NOW)).toEqual({ ok: true });
    expect(await slackConnector.send(config, expiring, http, NOW)).toEqual({
      ok: false,
      error: 'HTTP 429: rate_limited',
      retryAfterSeconds: 30,
    });
    const blocks = slack.seen[0].json.blocks as { type: string; text?: { text: string } }[];
    expect(blocks.map((b) => b.type)).toEqual(['header', 'section', 'context']);
    expect(blocks[0].text?.text).toBe('api.example.com expires in 6 days');
    expect(slack.seen[0].url).toBe('/services/T000/B000/XXXX');
  });

  it('Teams: a workflow message carrying one Adaptive Card; 202 Accepted', async () => {
    const teams = await vendor((seen, res) => {
      const attachments = seen.json.attachments as { contentType: string; content: { type: string } }[];
      const ok =
        seen.json.type === 'message' &&
        attachments?.[0]?.contentType === 'application/vnd.microsoft.card.adaptive' &&
        attachments[0].content.type === 'AdaptiveCard';
      return res.writeHead(ok ? 202 : 400).end(ok ? '' : '{"error":{"code":"InvalidRequestContent"}}');
    });
    servers.push(teams.server);
    const config = configOf(
      teamsConnector,
      {},
      { workflow_url: `${teams.base}/workflows/abc/triggers/manual/paths/invoke?sig=s` },
    );
    expect(await teamsConnector.send(config, expiring, http, NOW)).toEqual({ ok: true });
    const card = (
      teams.seen[0].json.attachments as {
        content: { body: { type: string; inlines?: { type: string; text: string }[] }[] };
      }[]
    )[0].content;
    const lines = card.body.map((block) => (block.inlines ?? []).map((run) => run.text).join(''));
    expect(lines).toContain('common_name: api.example.com');
    expect(lines).toContain('days_remaining: 6');
  });

  it('PagerDuty Events API v2: trigger then resolve under one stable dedup_key; 400 and 429 answers', async () => {
    const pd = await vendor((seen, res, n) => {
      if (n === 3) return res.writeHead(429).end('{"status":"throttled"}');
      const key = seen.json.routing_key;
      if (seen.url !== '/v2/enqueue' || typeof key !== 'string' || key.length !== 32)
        return res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(
            '{"status":"invalid event","message":"Event object is invalid","errors":["Length of \'routing_key\' is incorrect"]}',
          );
      return res
        .writeHead(202, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: seen.json.dedup_key }),
        );
    });
    servers.push(pd.server);
    const config = configOf(
      pagerDutyConnector,
      { api_url: pd.base },
      { routing_key: 'R0123456789abcdef0123456789ABCDE' },
    );
    expect(await pagerDutyConnector.send(config, expiring, http, NOW)).toEqual({ ok: true });
    expect(await pagerDutyConnector.send(config, renewed, http, NOW)).toEqual({ ok: true });
    const [trigger, resolve] = pd.seen.map((s) => s.json);
    expect(trigger).toMatchObject({
      event_action: 'trigger',
      dedup_key: 'certlane/cert-9/expiry',
      payload: { severity: 'critical', source: 'certlane', summary: 'api.example.com expires in 6 days' },
    });
    expect(resolve).toEqual({
      routing_key: 'R0123456789abcdef0123456789ABCDE',
      event_action: 'resolve',
      dedup_key: 'certlane/cert-9/expiry',
    });
    expect((await pagerDutyConnector.send(config, expiring, http, NOW)).ok).toBe(false);
    const bad = { ...config, routingKey: 'short' };
    expect(await pagerDutyConnector.send(bad, expiring, http, NOW)).toMatchObject({
      ok: false,
      error: expect.stringContaining('HTTP 400'),
    });
  });

  it('OpsGenie Alert API: create with an alias and close by it, GenieKey auth; 401 and 429 answers', async () => {
    const og = await vendor((seen, res, n) => {
      if (seen.headers.authorization !== 'GenieKey 1a2b3c4d-aaaa-bbbb-cccc-1234567890ab')
        return res.writeHead(401).end('{"message":"Could not authenticate","took":0.0}');
      if (n === 3) return res.writeHead(429, { 'retry-after': '5' }).end('{"message":"Too many requests"}');
      return res.writeHead(202).end('{"result":"Request will be processed","took":0.1,"requestId":"r-1"}');
    });
    servers.push(og.server);
    const config = configOf(
      opsGenieConnector,
      { region: 'eu', api_url: og.base },
      { api_key: '1a2b3c4d-aaaa-bbbb-cccc-1234567890ab' },
    );
    expect(await opsGenieConnector.send(config, expiring, http, NOW)).toEqual({ ok: true });
    expect(await opsGenieConnector.send(config, renewed, http, NOW)).toEqual({ ok: true });
    expect(og.seen[0]).toMatchObject({
      url: '/v2/alerts',
      json: { alias: 'certlane/cert-9/expiry', priority: 'P1' },
    });
    expect(og.seen[1].url).toBe(
      `/v2/alerts/${encodeURIComponent('certlane/cert-9/expiry')}/close?identifierType=alias`,
    );
    expect(await opsGenieConnector.send(config, expiring, http, NOW)).toMatchObject({
      ok: false,
      retryAfterSeconds: 5,
    });
    expect(
      await opsGenieConnector.send({ ...config, apiKey: 'wrong-key-0000000000' }, expiring, http, NOW),
    ).toMatchObject({
      ok: false,
      error: expect.stringContaining('HTTP 401'),
    });
  });

  it('OpsGenie picks the EU or US endpoint by region', () => {
    const key = { api_key: '1a2b3c4d-aaaa-bbbb-cccc-1234567890ab' };
    expect(configOf(opsGenieConnector, { region: 'eu' }, key).apiUrl).toBe('https://api.eu.opsgenie.com');
    expect(configOf(opsGenieConnector, {}, key).apiUrl).toBe('https://api.opsgenie.com');
    expect(opsGenieConnector.parse({ region: 'apac' }, key)).toEqual({ invalid: 'region must be us or eu' });
  });
});
