import { randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  CertificateExpiryWarning,
  CertificateRevoked,
  DiscoveredCertificateFound,
  EventEnvelope,
  EventSubject,
  HealthCheckStatusChanged,
  JobStatusChanged,
} from '@certlane/contracts';
import { NatsBus, SecretBox, streamFor } from '@certlane/platform';
import { eventually, startServiceProcess, startTestSystem, TestSystem, testNatsUrl } from '@certlane/testing';
import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

const envelope = <T>(subject: string, data: T): EventEnvelope<T> => ({
  id: randomUUID(),
  subject,
  occurred_at: new Date().toISOString(),
  data,
});

/** A webhook receiver answering 204 and keeping every request. */
async function sink() {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

/**
 * Revocation and job events routed by their certificate's owner, team and environment (looked up
 * in the real issuance service), and a notifier killed (SIGKILL) while it consumes a stream of
 * events: JetStream redelivers what it had not acknowledged to the restarted process, and every
 * fact still makes one notification, delivered under one webhook-id.
 */
describe('notifier: routing attributes and redelivery after a crash', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let nats: NatsConnection;
  let db: Client;
  let hook: Awaited<ReturnType<typeof sink>>;

  const publish = <T>(subject: EventSubject, data: T) =>
    bus.publish(subject, envelope(subject, data) as never);

  const rows = async (notifier: string) =>
    (
      await db.query(
        `SELECT id, dedup_key, event_type, status, event FROM notifier.notifications
          WHERE notifier_id = $1 ORDER BY dedup_key`,
        [notifier],
      )
    ).rows as {
      id: string;
      dedup_key: string;
      event_type: string;
      status: string;
      event: Record<string, unknown>;
    }[];

  beforeAll(async () => {
    hook = await sink();
    system = await startTestSystem('notifier-routing', ['issuance', 'notifier'], {
      SERVICE_NOTIFICATION_RETRY_INTERVAL: '1s',
      SERVICE_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.1',
    });
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'notifier-routing-test',
      requestTimeoutMs: 5000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    nats = await connect({ servers: testNatsUrl() });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    await db.query(`
      SET search_path TO issuance;
      INSERT INTO teams (id, name) VALUES ('web', 'Web');
      INSERT INTO owners (id, name, team_id) VALUES ('alice', 'Alice', 'web');
      INSERT INTO certificates (id, name, common_name, environment, owner_id, team_id, renewal_policy_id, status)
      VALUES ('api', 'api', 'api.example.com', 'production', 'alice', 'web', 'rp-default', 'Active');
      SET search_path TO public;`);
    const box = new SecretBox(system.env.SERVICE_CONFIG_ENCRYPTION_KEY!, 'notifier secrets');
    for (const id of ['by-owner', 'by-team', 'staging', 'crash'])
      await db.query(
        `INSERT INTO notifier.notifiers (id, name, kind, sealed_secrets) VALUES ($1, $1, 'webhook', $2)`,
        [id, box.seal(JSON.stringify({ url: `${hook.url}/${id}`, secret: SECRET }), id)],
      );
    await db.query(
      `INSERT INTO notifier.routing_rules (id, name, event_types, owner_ids, team_ids, environments, notifier_ids)
       VALUES ('alice-jobs', 'Alice', '{certificate.renewal_failed}', '{alice}', '{}', '{}', '{by-owner}'),
              ('web-revocations', 'Web', '{certificate.revoked}', '{}', '{web}', '{production}', '{by-team}'),
              ('staging-only', 'Staging', '{}', '{}', '{}', '{staging}', '{staging}'),
              ('crash', 'Crash', '{certificate.expiring}', '{}', '{}', '{}', '{crash}')`,
    );
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await nats?.close();
    await system?.stop();
    await new Promise((resolve) => hook?.server.close(resolve));
  });

  it('routes a failed renewal by the owner of its certificate', async () => {
    await publish<JobStatusChanged>('issuance.v1.job.status-changed', {
      job_id: 'job-1',
      type: 'Renewal',
      certificate_id: 'api',
      from: 'Running',
      to: 'Failed',
      error: 'CA unreachable',
      at: new Date().toISOString(),
    });
    await eventually(async () => (await rows('by-owner')).length === 1, 'the owner rule matched');
    const [row] = await rows('by-owner');
    expect(row.event).toMatchObject({
      type: 'certificate.renewal_failed',
      owner_id: 'alice',
      team_id: 'web',
      environment: 'production',
      details: { common_name: 'api.example.com', job_id: 'job-1' },
    });
    expect(await rows('staging')).toEqual([]);
  });

  it('routes a revocation by the team and environment of its certificate', async () => {
    await publish<CertificateRevoked>('issuance.v1.certificate.revoked', {
      issuer_id: 'local-ca',
      serial_hex: '0a1b',
      reason: 'keyCompromise',
      revoked_at: new Date().toISOString(),
      certificate_id: 'api',
    });
    await eventually(async () => (await rows('by-team')).length === 1, 'the team rule matched');
    expect((await rows('by-team'))[0].event).toMatchObject({ issuer_id: 'local-ca', team_id: 'web' });
  });

  it('a revocation of a certificate issuance does not know is stored without owner or team', async () => {
    await db.query(
      `INSERT INTO notifier.routing_rules (id, name, event_types, notifier_ids)
       VALUES ('all-revocations', 'All', '{certificate.revoked}', '{by-owner}')`,
    );
    await publish<CertificateRevoked>('issuance.v1.certificate.revoked', {
      issuer_id: 'local-ca',
      serial_hex: 'ff01',
      reason: 'superseded',
      revoked_at: new Date().toISOString(),
      certificate_id: 'no-such-certificate',
    });
    await eventually(
      async () => (await rows('by-owner')).some((row) => row.dedup_key.includes('ff01')),
      'the unknown certificate’s revocation',
    );
    const row = (await rows('by-owner')).find((r) => r.dedup_key.includes('ff01'))!;
    expect(row.event).toMatchObject({ owner_id: null, team_id: null, environment: null });
  });

  it('turns a health monitor status change into an endpoint.health_changed notification', async () => {
    await db.query(
      `INSERT INTO notifier.routing_rules (id, name, event_types, min_severity, notifier_ids)
       VALUES ('health', 'Health', '{endpoint.health_changed}', 'critical', '{by-team}')`,
    );
    const change = (to: HealthCheckStatusChanged['to'], at: string): HealthCheckStatusChanged => ({
      health_check_id: 'hc-shop',
      name: 'Shop',
      host: 'shop.example.com',
      port: 443,
      from: to === 'down' ? 'healthy' : 'down',
      to,
      error: to === 'down' ? 'connect ECONNREFUSED' : null,
      changed_at: at,
    });
    await publish(
      'health-monitor.v1.health-check.status-changed',
      change('down', '2026-11-25T00:00:00.000Z'),
    );
    // The recovery is info: below this rule's min_severity, so it reaches nobody here.
    await publish(
      'health-monitor.v1.health-check.status-changed',
      change('healthy', '2026-11-25T00:05:00.000Z'),
    );
    await eventually(
      async () => (await rows('by-team')).some((row) => row.event_type === 'endpoint.health_changed'),
      'the health notification',
    );
    const health = (await rows('by-team')).filter((row) => row.event_type === 'endpoint.health_changed');
    expect(health).toHaveLength(1);
    expect(health[0].event).toMatchObject({
      severity: 'critical',
      title: 'Shop (shop.example.com:443) is down',
      details: { health_check_id: 'hc-shop', to: 'down', error: 'connect ECONNREFUSED' },
    });
  });

  it('turns a first sighting into one discovery.found notification per fingerprint', async () => {
    const box = new SecretBox(system.env.SERVICE_CONFIG_ENCRYPTION_KEY!, 'notifier secrets');
    await db.query(
      `INSERT INTO notifier.notifiers (id, name, kind, sealed_secrets) VALUES ('discovery', 'discovery', 'webhook', $1)`,
      [box.seal(JSON.stringify({ url: `${hook.url}/discovery`, secret: SECRET }), 'discovery')],
    );
    await db.query(
      `INSERT INTO notifier.routing_rules (id, name, event_types, min_severity, notifier_ids)
       VALUES ('found', 'Found', '{discovery.found}', 'warning', '{discovery}')`,
    );
    const found = (fingerprint: string, notAfter: string, location: string): DiscoveredCertificateFound => ({
      fingerprint,
      subject: 'CN=legacy.internal',
      issuer: 'CN=Old CA',
      not_before: '2026-01-01T00:00:00.000Z',
      not_after: notAfter,
      location,
      source: 'network',
      scan_id: 'scan-1',
      found_at: '2026-11-25T00:00:00.000Z',
    });
    const soon = 'a1'.repeat(32);
    await publish(
      'health-monitor.v1.discovered-certificate.found',
      found(soon, '2026-12-05T00:00:00.000Z', 'network:10.0.0.7:443'),
    );
    // The same certificate announced again (another place, a re-published event): the same fact.
    await publish(
      'health-monitor.v1.discovered-certificate.found',
      found(soon, '2026-12-05T00:00:00.000Z', 'network:10.0.0.8:443'),
    );
    // Valid for a year: info, below the rule's min_severity.
    await publish(
      'health-monitor.v1.discovered-certificate.found',
      found('b2'.repeat(32), '2027-11-25T00:00:00.000Z', 'network:10.0.0.9:443'),
    );
    await eventually(
      async () => (await rows('discovery')).some((row) => row.status === 'sent'),
      'the discovery notification delivered',
    );
    const marker = 'c3'.repeat(32);
    await publish(
      'health-monitor.v1.discovered-certificate.found',
      found(marker, '2026-11-26T00:00:00.000Z', 'agent:agt-1:/etc/ssl/x.pem'),
    );
    await eventually(async () => (await rows('discovery')).length === 2, 'a later discovery stored');
    const stored = await rows('discovery');
    expect(stored.map((row) => row.dedup_key)).toEqual([
      `discovery.found:${soon}|discovery`,
      `discovery.found:${marker}|discovery`,
    ]);
    expect(stored[0].event).toMatchObject({
      type: 'discovery.found',
      severity: 'warning',
      title: 'New certificate discovered: CN=legacy.internal at network:10.0.0.7:443',
      details: { fingerprint: soon, days_remaining: 10, source: 'network', location: 'network:10.0.0.7:443' },
    });
    expect(stored[1].event).toMatchObject({ severity: 'critical' });
  });

  it('a notifier killed before acknowledging: the redelivered events add no duplicate', async () => {
    const facts = 150;
    const subject = 'issuance.v1.certificate.expiry-warning' as const;
    const publishFacts = async (from: number, to: number) => {
      for (let i = from; i < to; i++)
        await publish<CertificateExpiryWarning>(subject, {
          certificate_id: `crash-${i}`,
          common_name: `crash-${i}.example.com`,
          environment: 'production',
          owner_id: 'alice',
          team_id: 'web',
          renewal_policy_id: 'rp-default',
          status: 'Expiring',
          expires_at: '2026-12-08T00:00:00.000Z',
          threshold_days: 14,
          days_remaining: 13,
        });
    };
    const jsm = await nats.jetstreamManager();
    const stream = streamFor(subject, system.env.SERVICE_NATS_NAMESPACE).name;
    const consumerState = () => jsm.consumers.info(stream, 'notifier-expiry-warning');
    await publishFacts(0, facts / 3);
    await eventually(async () => (await rows('crash')).length === facts / 3, 'a third of the events stored');
    // The notifications table locked against writes: the notifier takes the next event and waits
    // on storing it, unacknowledged, however fast the machine, when it is killed.
    const lock = new Client({ connectionString: system.database.url });
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE notifier.notifications IN EXCLUSIVE MODE');
    const first = system.services.notifier;
    try {
      await publishFacts(facts / 3, facts);
      await eventually(
        async () => (await consumerState()).num_ack_pending > 0,
        'an event taken and not acknowledged',
      );
      first.child.kill('SIGKILL');
      await first.stop();
    } finally {
      await lock.query('ROLLBACK');
      await lock.end();
    }
    // What JetStream holds unacknowledged for the consumer at the crash (one event in flight).
    const atCrash = await consumerState();
    expect(atCrash.num_ack_pending + atCrash.num_pending).toBeGreaterThan(0);

    system.services.notifier = await startServiceProcess('notifier', system.env, { ca: system.ca });
    await eventually(
      async () => {
        const stored = await rows('crash');
        return stored.length === facts && stored.every((row) => row.status === 'sent');
      },
      'every fact stored and sent after the restart',
      90_000,
    );
    // The events the first process took but never acknowledged come back only after the
    // consumer's ack wait (30 s), possibly after every row above is already stored: wait for
    // JetStream to hold nothing for the consumer, so the redelivered events were handled.
    await eventually(
      async () => {
        const after = await jsm.consumers.info(stream, 'notifier-expiry-warning');
        return after.num_pending + after.num_ack_pending === 0;
      },
      'every redelivered event acknowledged',
      90_000,
    );
    const stored = await rows('crash');
    expect(new Set(stored.map((row) => row.dedup_key)).size).toBe(facts);
    // At the receiver: each fact under one webhook-id (a send cut by the kill may repeat it).
    const crashHooks = hook.received.filter((r) => r.headers['webhook-id'] && r.body.includes('crash-'));
    const idsByFact = new Map<string, Set<string>>();
    for (const request of crashHooks) {
      const fact = (JSON.parse(request.body) as { data: { certificate_id: string } }).data.certificate_id;
      idsByFact.set(fact, (idsByFact.get(fact) ?? new Set()).add(String(request.headers['webhook-id'])));
    }
    expect(idsByFact.size).toBe(facts);
    expect([...idsByFact.values()].every((ids) => ids.size === 1)).toBe(true);
  }, 240_000);
});
