import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { NotificationDto, Page } from '@certlane/contracts';
import { SecretBox } from '@certlane/platform';
import { eventually, httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';

const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

/**
 * /api/v1/notifications through the real gateway, auth and notifier processes: list with filters,
 * get, requeue of a dead notification (spec 4.8: pending with counters cleared, then delivered by
 * the sweep), mark read, and the refusals (409 for the wrong state, 404, 400).
 */
describe('notification routes', () => {
  let system: TestSystem;
  let db: Client;
  let receiver: Server;
  let received = 0;
  let gateway: string;
  const deadId = randomUUID();
  const sentId = randomUUID();

  const call = (method: string, path: string) =>
    httpsRequest(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}` },
      ca: system.ca,
    });

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    system = await startTestSystem('notifroutes', ['auth', 'notifier', 'api-gateway'], {
      SERVICE_NOTIFICATION_RETRY_INTERVAL: '1s',
      SERVICE_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.1',
    });
    gateway = system.services['api-gateway'].url;
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const box = new SecretBox(system.env.SERVICE_CONFIG_ENCRYPTION_KEY!, 'notifier secrets');
    await db.query(
      `INSERT INTO notifier.notifiers (id, name, kind, sealed_secrets) VALUES ('hook', 'Hook', 'webhook', $1)`,
      [box.seal(JSON.stringify({ url, secret: SECRET }), 'hook')],
    );
    const event = (certificate: string) =>
      JSON.stringify({
        type: 'certificate.expiring',
        severity: 'critical',
        dedup_key: `certificate.expiring:${certificate}:2026-12-01T00:00:00.000Z:7`,
        certificate_id: certificate,
        owner_id: null,
        team_id: null,
        environment: null,
        issuer_id: null,
        title: `${certificate} expires in 6 days`,
        details: { days_remaining: 6 },
        occurred_at: '2026-11-24T00:00:00.000Z',
      });
    await db.query(
      `INSERT INTO notifier.notifications
         (id, dedup_key, event_type, severity, certificate_id, notifier_id, title, event, status, retry_count, last_error, created_at)
       VALUES ($1, 'k-dead|hook', 'certificate.expiring', 'critical', 'cert-dead', 'hook', 'cert-dead expires in 6 days', $2,
               'dead', 4, 'HTTP 503', now() - interval '1 hour'),
              ($3, 'k-sent|hook', 'certificate.expiring', 'critical', 'cert-sent', 'hook', 'cert-sent expires in 6 days', $4,
               'sent', 0, NULL, now())`,
      [deadId, event('cert-dead'), sentId, event('cert-sent')],
    );
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('lists newest first and filters by status and certificate', async () => {
    const all = await call('GET', '/api/v1/notifications');
    expect(all.status).toBe(200);
    const page = all.json() as Page<NotificationDto>;
    expect(page.data.map((n) => n.id)).toEqual([sentId, deadId]);
    expect(page.total).toBe(2);
    const dead = (await call('GET', '/api/v1/notifications?status=dead')).json() as Page<NotificationDto>;
    expect(dead.data.map((n) => n.id)).toEqual([deadId]);
    expect(dead.data[0]).toMatchObject({
      status: 'dead',
      retry_count: 4,
      next_retry_at: null,
      last_error: 'HTTP 503',
    });
    const byCert = (
      await call('GET', '/api/v1/notifications?certificate_id=cert-sent')
    ).json() as Page<NotificationDto>;
    expect(byCert.data.map((n) => n.id)).toEqual([sentId]);
    expect((await call('GET', '/api/v1/notifications?status=lost')).status).toBe(400);
  });

  it('requeue of a pending/sent one is refused with 409 notification_not_dead', async () => {
    const refused = await call('POST', `/api/v1/notifications/${sentId}/requeue`);
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'notification_not_dead' });
  });

  it('requeue of a dead one: pending with counters cleared, then sent by the sweep', async () => {
    const requeued = await call('POST', `/api/v1/notifications/${deadId}/requeue`);
    expect(requeued.status).toBe(200);
    expect(requeued.json()).toMatchObject({
      status: 'pending',
      retry_count: 0,
      next_retry_at: null,
      last_error: null,
    });
    await eventually(
      async () =>
        ((await call('GET', `/api/v1/notifications/${deadId}`)).json() as NotificationDto).status === 'sent',
      'the requeued notification sent',
      20_000,
    );
    expect(received).toBe(1);
  });

  it('mark read: sent -> read; a dead or pending one cannot be read', async () => {
    const read = await call('POST', `/api/v1/notifications/${sentId}/read`);
    expect(read.status).toBe(200);
    expect(read.json()).toMatchObject({ id: sentId, status: 'read' });
    await db.query(`UPDATE notifier.notifications SET status = 'dead', next_retry_at = NULL WHERE id = $1`, [
      deadId,
    ]);
    const refused = await call('POST', `/api/v1/notifications/${deadId}/read`);
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'notification_not_readable' });
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    const missing = await call('GET', `/api/v1/notifications/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'notification_not_found' });
    expect((await call('POST', '/api/v1/notifications/not-a-uuid/requeue')).status).toBe(400);
  });
});
