import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { GuardedHttp, OutboundRefused } from '../outbound/outbound-http';
import { networkList } from '../outbound/reserved-addresses';
import { OutboundNotification } from '../notifier-connector';
import { webhookConnector } from './webhook.connector';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

const notification: OutboundNotification = {
  id: '5d0c1a52-9f1e-4c1b-9a57-2f4d0f6c1e11',
  event_type: 'certificate.expiring',
  severity: 'warning',
  title: 'api.example.com expires in 13 days',
  dedup_key: 'certificate.expiring:cert-1:2026-12-08T00:00:00.000Z:14',
  certificate_id: 'cert-1',
  recipients: [],
  details: { days_remaining: 13 },
  occurred_at: '2026-11-24T00:00:00.000Z',
};

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver on loopback answering what `answer` says, keeping what it got. */
async function receiver(answer: (count: number) => { status: number; headers?: Record<string, string> }) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const { status, headers } = answer(received.length);
      res.writeHead(status, headers).end(status >= 400 ? '{"error":"busy"}' : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/certlane`;
  return { server, url, received };
}

const allowLoopback = new GuardedHttp({ allowed: networkList(['127.0.0.1']), timeoutMs: 2000 });

describe('webhook notifier (Standard Webhooks)', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it('signs so an independent Standard Webhooks implementation verifies it, and refuses a tampered body', async () => {
    const sink = await receiver(() => ({ status: 204 }));
    servers.push(sink.server);
    const config = webhookConnector.parse({}, { url: sink.url, secret: SECRET });
    if ('invalid' in config) throw new Error(config.invalid);
    const result = await webhookConnector.send(config, notification, allowLoopback, new Date());
    expect(result).toEqual({ ok: true });
    const [got] = sink.received;
    const verifier = new Webhook(SECRET);
    const headers = {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    };
    expect(headers['webhook-id']).toBe(`msg_${notification.id}`);
    expect(verifier.verify(got.body, headers)).toMatchObject({
      type: 'certificate.expiring',
      data: { notification_id: notification.id, certificate_id: 'cert-1' },
    });
    expect(() => verifier.verify(got.body.replace('13 days', '30 days'), headers)).toThrow();
  });

  it('a receiver refuses a replay: a timestamp older than its tolerance does not verify', async () => {
    const sink = await receiver(() => ({ status: 200 }));
    servers.push(sink.server);
    const config = webhookConnector.parse({}, { url: sink.url, secret: SECRET });
    if ('invalid' in config) throw new Error(config.invalid);
    await webhookConnector.send(config, notification, allowLoopback, new Date(Date.now() - 3_600_000));
    const [got] = sink.received;
    expect(() =>
      new Webhook(SECRET).verify(got.body, {
        'webhook-id': String(got.headers['webhook-id']),
        'webhook-timestamp': String(got.headers['webhook-timestamp']),
        'webhook-signature': String(got.headers['webhook-signature']),
      }),
    ).toThrow(/timestamp/i);
  });

  it("reports a 429 with the receiver's Retry-After, and a 500 as a plain failure", async () => {
    const sink = await receiver((n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '120' } } : { status: 500 },
    );
    servers.push(sink.server);
    const config = webhookConnector.parse({}, { url: sink.url, secret: SECRET });
    if ('invalid' in config) throw new Error(config.invalid);
    expect(await webhookConnector.send(config, notification, allowLoopback, new Date())).toEqual({
      ok: false,
      error: 'HTTP 429: {"error":"busy"}',
      retryAfterSeconds: 120,
    });
    expect(await webhookConnector.send(config, notification, allowLoopback, new Date())).toEqual({
      ok: false,
      error: 'HTTP 500: {"error":"busy"}',
    });
  });

  it('refuses to dial loopback unless allow-listed', async () => {
    const sink = await receiver(() => ({ status: 204 }));
    servers.push(sink.server);
    const config = webhookConnector.parse({}, { url: sink.url, secret: SECRET });
    if ('invalid' in config) throw new Error(config.invalid);
    const strict = new GuardedHttp({ allowed: networkList([]) });
    await expect(webhookConnector.send(config, notification, strict, new Date())).rejects.toBeInstanceOf(
      OutboundRefused,
    );
    expect(sink.received).toHaveLength(0);
  });

  it('checks the address it dials, not the name: a host resolving to the metadata address is refused', async () => {
    const rebinding = new GuardedHttp({
      allowed: networkList(['127.0.0.1']),
      resolve: async () => ({ address: '169.254.169.254', family: 4 }),
    });
    await expect(
      rebinding.send({ method: 'POST', url: 'http://hooks.example.test/x', headers: {}, body: '{}' }),
    ).rejects.toThrow(/169\.254\.169\.254, a reserved address/);
  });

  it('dials the address it checked: a name pinned to loopback reaches the loopback receiver', async () => {
    const sink = await receiver(() => ({ status: 200 }));
    servers.push(sink.server);
    const port = new URL(sink.url).port;
    const pinned = new GuardedHttp({
      allowed: networkList(['127.0.0.1']),
      resolve: async () => ({ address: '127.0.0.1', family: 4 }),
    });
    const response = await pinned.send({
      method: 'POST',
      url: `http://receiver.example.test:${port}/x`,
      headers: {},
      body: '{}',
    });
    expect(response.status).toBe(200);
    expect(sink.received[0].headers.host).toBe(`receiver.example.test:${port}`);
  });

  it('refuses an unusable config', () => {
    expect(webhookConnector.parse({}, { url: 'ftp://x', secret: SECRET })).toEqual({
      invalid: 'url must be an http(s) URL',
    });
    expect(webhookConnector.parse({}, { url: 'https://hooks.example.com', secret: 'plain' })).toHaveProperty(
      'invalid',
    );
  });
});
