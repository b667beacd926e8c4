import { randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { get as httpsGet } from 'node:https';
import { AddressInfo } from 'node:net';
import { CertificateExpiryWarning, EventEnvelope } from '@certlane/contracts';
import { NatsBus, SecretBox } from '@certlane/platform';
import { eventually, startTestSystem, TestSystem, testNatsUrl } from '@certlane/testing';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';

const SUBJECT = 'issuance.v1.certificate.expiry-warning' as const;
const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const CERTIFICATES = 40;

function warning(certificate: string, threshold = 14): CertificateExpiryWarning {
  return {
    certificate_id: certificate,
    common_name: `${certificate}.example.com`,
    environment: 'production',
    owner_id: 'alice',
    team_id: 'payments',
    renewal_policy_id: 'rp-default',
    status: 'Expiring',
    expires_at: '2026-12-08T00:00:00.000Z',
    threshold_days: threshold,
    days_remaining: threshold - 1,
  };
}

const envelope = (
  data: CertificateExpiryWarning,
  id = randomUUID(),
): EventEnvelope<CertificateExpiryWarning> => ({
  id,
  subject: SUBJECT,
  occurred_at: new Date().toISOString(),
  data,
});

/** A webhook receiver: answers `status`, keeps every request. */
async function sink(status: () => number) {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status()).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

function metrics(url: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    httpsGet(`${url}/metrics`, { ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    }).once('error', reject);
  });
}

/**
 * The notifier service, two replicas on one database, against real NATS and Postgres:
 * expiry warnings published on JetStream become one notification per (fact, notifier), each
 * delivered exactly once to a local webhook receiver that verifies the Standard Webhooks
 * signature with the standardwebhooks package; a receiver that keeps failing drives a
 * notification through failed to dead (next_retry_at moved into the past stands in for the
 * clock), the dead gauge counts it, and a notification whose notifier was deleted ends sent.
 */
describe('notifier service: delivery', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let good: Awaited<ReturnType<typeof sink>>;
  let down: Awaited<ReturnType<typeof sink>>;

  const addNotifier = async (id: string, url: string) => {
    const box = new SecretBox(system.env.SERVICE_CONFIG_ENCRYPTION_KEY!, 'notifier secrets');
    await db.query(
      `INSERT INTO notifier.notifiers (id, name, kind, sealed_secrets) VALUES ($1, $1, 'webhook', $2)`,
      [id, box.seal(JSON.stringify({ url, secret: SECRET }), id)],
    );
  };

  beforeAll(async () => {
    good = await sink(() => 204);
    down = await sink(() => 503);
    system = await startTestSystem('notifier-delivery', ['notifier', 'notifier'], {
      SERVICE_NOTIFICATION_RETRY_INTERVAL: '1s',
      SERVICE_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.1',
    });
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'notifier-delivery-test',
      requestTimeoutMs: 5000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    await addNotifier('hook-good', good.url);
    await addNotifier('hook-down', down.url);
    await db.query(
      `INSERT INTO notifier.routing_rules (id, name, event_types, environments, notifier_ids)
       VALUES ('prod-expiry', 'Production expiry', '{certificate.expiring}', '{production}', '{hook-good}'),
              ('all-to-good', 'Everything', '{}', '{}', '{hook-good}'),
              ('down-for-one', 'Down', '{}', '{}', '{hook-down}')`,
    );
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await system?.stop();
    for (const server of [good?.server, down?.server]) await new Promise((resolve) => server?.close(resolve));
  });

  const rows = async (notifier: string) =>
    (
      await db.query(
        `SELECT id, dedup_key, status, retry_count, next_retry_at, last_error FROM notifier.notifications
          WHERE notifier_id = $1 ORDER BY dedup_key`,
        [notifier],
      )
    ).rows as {
      id: string;
      dedup_key: string;
      status: string;
      retry_count: number;
      next_retry_at: Date | null;
      last_error: string | null;
    }[];

  it('delivers each fact once per notifier across two replicas and redeliveries, signed', async () => {
    await db.query(`UPDATE notifier.routing_rules SET enabled = false WHERE id = 'down-for-one'`);
    const envelopes = Array.from({ length: CERTIFICATES }, (_, i) => envelope(warning(`cert-${i}`)));
    for (const e of envelopes) await bus.publish(SUBJECT, e);
    // The same envelopes again (a redelivery) and the same facts under new ids (a re-published event).
    for (const e of envelopes) await bus.publish(SUBJECT, e);
    for (const e of envelopes.slice(0, 10)) await bus.publish(SUBJECT, envelope(e.data));

    await eventually(
      async () =>
        (await rows('hook-good')).every((r) => r.status === 'sent') &&
        (await rows('hook-good')).length === CERTIFICATES,
      'every notification sent',
      30_000,
    );
    const stored = await rows('hook-good');
    expect(stored).toHaveLength(CERTIFICATES);
    expect(good.received).toHaveLength(CERTIFICATES);
    const ids = good.received.map((r) => String(r.headers['webhook-id']));
    expect(new Set(ids).size).toBe(CERTIFICATES);
    expect(new Set(ids)).toEqual(new Set(stored.map((r) => `msg_${r.id}`)));
    const verifier = new Webhook(SECRET);
    for (const request of good.received) {
      const payload = verifier.verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }) as { type: string; data: { certificate_id: string } };
      expect(payload.type).toBe('certificate.expiring');
    }
    await db.query(`UPDATE notifier.routing_rules SET enabled = true WHERE id = 'down-for-one'`);
  }, 60_000);

  it('a failing receiver: failed with 2^n-minute backoff, dead after the 5th attempt, counted on /metrics', async () => {
    await bus.publish(SUBJECT, envelope(warning('cert-down', 7)));
    const mine = async () => (await rows('hook-down')).find((r) => r.dedup_key.includes('cert-down'));
    await eventually(async () => (await mine())?.status === 'failed', 'first failure', 20_000);
    const first = (await mine())!;
    expect(first.retry_count).toBe(1);
    expect(first.last_error).toBe('HTTP 503');
    const waitMinutes = (first.next_retry_at!.getTime() - Date.now()) / 60_000;
    expect(waitMinutes).toBeGreaterThan(1.5);
    expect(waitMinutes).toBeLessThanOrEqual(2);

    for (let attempt = 2; attempt <= 5; attempt++) {
      // Time passes: the retry is due.
      await db.query(
        `UPDATE notifier.notifications SET next_retry_at = now() - interval '1 second' WHERE id = $1`,
        [first.id],
      );
      const before = attempt - 1;
      await eventually(
        async () => {
          const row = (await mine())!;
          return row.status === 'dead' || row.retry_count > before;
        },
        `attempt ${attempt}`,
        20_000,
      );
    }
    const dead = (await mine())!;
    expect(dead).toMatchObject({
      status: 'dead',
      retry_count: 4,
      next_retry_at: null,
      last_error: 'HTTP 503',
    });
    const attempts = down.received.filter((r) => r.body.includes('cert-down'));
    expect(attempts).toHaveLength(5);
    const text = await metrics(system.services.notifier.url, system.ca);
    expect(text).toMatch(/^service_notification_dead_total\{[^}]*\} 1$/m);
  }, 90_000);

  it('a failed notification whose notifier was deleted ends sent at the next sweep', async () => {
    await addNotifier('hook-gone', down.url);
    await db.query(
      `INSERT INTO notifier.routing_rules (id, name, notifier_ids) VALUES ('to-gone', 'Gone', '{hook-gone}')`,
    );
    await bus.publish(SUBJECT, envelope(warning('cert-gone', 30)));
    const mine = async () => (await rows('hook-gone')).find((r) => r.dedup_key.includes('cert-gone'));
    await eventually(async () => (await mine())?.status === 'failed', 'failed once', 20_000);
    await db.query(`DELETE FROM notifier.notifiers WHERE id = 'hook-gone'`);
    await db.query(`UPDATE notifier.notifications SET next_retry_at = now() WHERE notifier_id = 'hook-gone'`);
    await eventually(async () => (await mine())?.status === 'sent', 'sent without a notifier', 20_000);
    expect((await mine())!.retry_count).toBe(1);
  }, 60_000);
});
