import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { CertificateExpiryWarning } from '@certlane/contracts';
import { NatsBus, SecretBox } from '@certlane/platform';
import { eventually, startTestSystem, TestSystem, testNatsUrl } from '@certlane/testing';
import { Client } from 'pg';

const SUBJECT = 'issuance.v1.certificate.expiry-warning' as const;

/** A Slack-like incoming webhook: answers `ok` after 100 ms, or 429 with Retry-After when told. */
async function slackServer() {
  const arrivals: { path: string; at: number; inFlight: number }[] = [];
  const answers: Record<string, { status: number; retryAfter?: string }[]> = {};
  let inFlight = 0;
  const server: Server = createServer((req, res) => {
    inFlight++;
    arrivals.push({ path: req.url!, at: Date.now(), inFlight });
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        inFlight--;
        const answer = answers[req.url!]?.shift() ?? { status: 200 };
        if (answer.status === 429)
          res
            .writeHead(429, { 'retry-after': answer.retryAfter!, 'content-type': 'text/plain' })
            .end('rate_limited');
        else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      }, 100),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, arrivals, answers, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const warning = (certificate: string): CertificateExpiryWarning => ({
  certificate_id: certificate,
  common_name: `${certificate}.example.com`,
  environment: 'production',
  owner_id: '',
  team_id: '',
  renewal_policy_id: 'rp-default',
  status: 'Expiring',
  expires_at: '2026-12-08T00:00:00.000Z',
  threshold_days: 14,
  days_remaining: 13,
});

/**
 * Per-notifier limits across replicas (ADR 0062): two notifier processes share one Slack
 * notifier's one-per-second slot and single send permit, and a 429 with Retry-After holds every
 * replica's next send to that notifier.
 */
describe('notifier: per-notifier rate and concurrency limits', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let slack: Awaited<ReturnType<typeof slackServer>>;

  const addSlack = async (id: string, settings: Record<string, unknown> = {}) => {
    const box = new SecretBox(system.env.SERVICE_CONFIG_ENCRYPTION_KEY!, 'notifier secrets');
    await db.query(
      `INSERT INTO notifier.notifiers (id, name, kind, settings, sealed_secrets) VALUES ($1, $1, 'slack', $2, $3)`,
      [id, JSON.stringify(settings), box.seal(JSON.stringify({ webhook_url: `${slack.url}/${id}` }), id)],
    );
    await db.query(
      `INSERT INTO notifier.routing_rules (id, name, environments, notifier_ids) VALUES ($1, $1, '{}', $2)`,
      [`to-${id}`, [id]],
    );
  };

  const publish = (certificate: string) =>
    bus.publish(SUBJECT, {
      id: randomUUID(),
      subject: SUBJECT,
      occurred_at: new Date().toISOString(),
      data: warning(certificate),
    });

  beforeAll(async () => {
    slack = await slackServer();
    system = await startTestSystem('notifier-limits', ['notifier', 'notifier'], {
      SERVICE_NOTIFICATION_RETRY_INTERVAL: '1s',
      SERVICE_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.1',
    });
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'notifier-limits-test',
      requestTimeoutMs: 5000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await system?.stop();
    await new Promise((resolve) => slack?.server.close(resolve));
  });

  it('sends to one Slack webhook at most once a second and one at a time, across two replicas', async () => {
    await addSlack('slack-rate');
    for (let i = 0; i < 5; i++) await publish(`rate-${i}`);
    const mine = () => slack.arrivals.filter((a) => a.path === '/slack-rate');
    await eventually(() => mine().length === 5, 'five messages at the Slack server', 30_000);
    const times = mine().map((a) => a.at);
    const gaps = times.slice(1).map((at, i) => at - times[i]);
    // Sends start at slots 1000 ms apart; what the receiver sees also carries each request's own
    // connect and write time, which jitters by tens of ms, and by a quarter second on a machine
    // running other suites (743 ms was seen): the span over the five holds the rate, and no gap
    // comes near the 0 ms of two sends sharing a slot.
    expect(times[times.length - 1] - times[0]).toBeGreaterThanOrEqual(4 * 1000 - 150);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...mine().map((a) => a.inFlight))).toBe(1);
    await eventually(
      async () =>
        (
          await db.query(`SELECT status FROM notifier.notifications WHERE notifier_id = 'slack-rate'`)
        ).rows.every((row: { status: string }) => row.status === 'sent'),
      'all five recorded sent',
    );
  });

  it('a 429 with Retry-After holds the next send to that webhook on every replica', async () => {
    slack.answers['/slack-429'] = [{ status: 429, retryAfter: '3' }];
    await addSlack('slack-429', { max_per_second: null });
    await publish('held-1');
    await eventually(() => slack.arrivals.some((a) => a.path === '/slack-429'), 'the first send', 20_000);
    const refusedAt = slack.arrivals.find((a) => a.path === '/slack-429')!.at;
    await eventually(
      async () =>
        (
          await db.query(
            `SELECT 1 FROM notifier.notifications WHERE notifier_id = 'slack-429' AND status = 'failed'`,
          )
        ).rowCount === 1,
      'the refused notification failed',
    );
    await publish('held-2');
    await eventually(
      () => slack.arrivals.filter((a) => a.path === '/slack-429').length === 2,
      'the held send',
      20_000,
    );
    const heldAt = slack.arrivals.filter((a) => a.path === '/slack-429')[1].at;
    expect(heldAt - refusedAt).toBeGreaterThanOrEqual(2900);
    // The refused one waits for its own backoff (2 minutes, later than Retry-After); the next one is sent.
    const statuses = async () =>
      (
        await db.query(
          `SELECT status FROM notifier.notifications WHERE notifier_id = 'slack-429' ORDER BY created_at`,
        )
      ).rows.map((row: { status: string }) => row.status);
    await eventually(async () => (await statuses()).join() === 'failed,sent', 'the held one recorded sent');
  });
});
