import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { CaCertificateDto, RenewalSweepResult } from '@certlane/contracts';
import { NatsBus, SecretBox } from '@certlane/platform';
import { adminApiRequest, eventually, startTestSystem, TestSystem, testNatsUrl } from '@certlane/testing';
import { Client } from 'pg';

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

/**
 * ADR 0077 against the real auth, issuance, revocation, gateway and notifier processes: a CA near
 * its end is announced once per threshold by the renewal sweep (`issuance.v1.ca.expiry-warning`),
 * and a revoked CA (`issuance.v1.ca.revoked`); the notifier turns both into notifications routed
 * by the CA's issuer and delivers them to a webhook.
 */
describe('CA expiry and revocation notifications', () => {
  let system: TestSystem;
  let bus: NatsBus;
  let db: Client;
  let server: Server;
  let hookUrl: string;
  const received: { path: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
  let shortLived: CaCertificateDto;

  const sweep = () => bus.request('issuance.v1.run-renewal-sweep', {}) as Promise<RenewalSweepResult>;
  const notifications = async (notifier: string) =>
    (
      await db.query(
        `SELECT event_type, status, event FROM notifier.notifications WHERE notifier_id = $1 ORDER BY created_at`,
        [notifier],
      )
    ).rows as { event_type: string; status: string; event: Record<string, unknown> }[];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          path: req.url ?? '',
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    system = await startTestSystem(
      'ca-notifications',
      ['auth', 'issuance', 'revocation', 'api-gateway', 'notifier'],
      {
        SERVICE_NOTIFICATION_RETRY_INTERVAL: '1s',
        SERVICE_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.1',
        // Not the default (180, 90, 30, 7, 1): the thresholds recorded below come from the setting.
        SERVICE_CA_EXPIRY_ALERT_DAYS: '120,45,30,7',
      },
    );
    bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: 'ca-notifications-test',
      requestTimeoutMs: 10_000,
      namespace: system.env.SERVICE_NATS_NAMESPACE,
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const box = new SecretBox(system.env.SERVICE_CONFIG_ENCRYPTION_KEY!, 'notifier secrets');
    for (const id of ['pki-team', 'other-issuer'])
      await db.query(
        `INSERT INTO notifier.notifiers (id, name, kind, sealed_secrets) VALUES ($1, $1, 'webhook', $2)`,
        [id, box.seal(JSON.stringify({ url: `${hookUrl}/${id}`, secret: SECRET }), id)],
      );
    await db.query(
      `INSERT INTO notifier.routing_rules (id, name, event_types, issuer_ids, notifier_ids)
       VALUES ('ca-local', 'Local CAs', '{ca.expiring,ca.revoked}', '{iss-local}', '{pki-team}'),
              ('ca-other', 'Other CAs', '{ca.expiring,ca.revoked}', '{iss-other}', '{other-issuer}')`,
    );
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await system?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('refuses routing rules for unknown event types and accepts the CA ones', async () => {
    const rule = (id: string, eventTypes: string[]) =>
      adminApiRequest(system, 'POST', '/api/v1/routing-rules', {
        id,
        name: id,
        event_types: eventTypes,
        notifier_ids: ['pki-team'],
        enabled: false,
      });
    const refused = await rule('ca-typo', ['ca.expired']);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('ca.expiring');
    // A name is required on create (it was optional in the schema, and the store refused it).
    for (const path of ['/api/v1/routing-rules', '/api/v1/notifiers']) {
      const unnamed = await adminApiRequest(system, 'POST', path, {
        id: 'unnamed',
        kind: 'webhook',
        notifier_ids: ['pki-team'],
      });
      expect([path, unnamed.status, unnamed.text]).toEqual([
        path,
        400,
        expect.stringContaining('name is required'),
      ]);
    }
    const accepted = await rule('ca-api', ['ca.expiring', 'ca.revoked']);
    expect(accepted.status).toBe(201);
    expect(accepted.json()).toMatchObject({ event_types: ['ca.expiring', 'ca.revoked'] });
  });

  it('announces a CA near its end once, at the nearest threshold crossed, to the rule of its issuer', async () => {
    // Seeded CAs live for years: the first sweep announces nothing.
    expect((await sweep()).ca_expiry_warnings).toBe(0);
    const created = await adminApiRequest(system, 'POST', '/api/v1/intermediate-cas', {
      issuer_id: 'iss-local',
      parent_id: 'ca-local-root',
      common_name: 'Short Lived CA',
      validity_days: 20,
    });
    expect(created.status).toBe(201);
    shortLived = created.json() as CaCertificateDto;
    expect((await sweep()).ca_expiry_warnings).toBe(1);
    // Recorded once: a second sweep (every replica runs one) announces nothing more.
    expect((await sweep()).ca_expiry_warnings).toBe(0);
    const { rows } = await db.query(
      'SELECT threshold_days FROM issuance.ca_expiry_alerts WHERE ca_id = $1 ORDER BY threshold_days',
      [shortLived.id],
    );
    expect(rows.map((row) => row.threshold_days)).toEqual([30, 45, 120]);

    await eventually(
      async () => received.some((r) => r.path === '/hook/pki-team' && r.body.type === 'ca.expiring'),
      'the CA expiry warning delivered',
    );
    const delivered = received.filter((r) => r.body.type === 'ca.expiring');
    expect(delivered).toHaveLength(1);
    expect(delivered[0].body).toMatchObject({
      type: 'ca.expiring',
      data: {
        severity: 'critical',
        title: expect.stringMatching(/^CA CN=Short Lived CA.* expires in 1[89] days$/),
        certificate_id: null,
        details: { ca_id: shortLived.id, status: 'active', issuing: 'no', threshold_days: 30 },
      },
    });
    expect(delivered[0].headers['webhook-id']).toEqual(expect.any(String));
    const [stored] = await notifications('pki-team');
    expect(stored.event).toMatchObject({ type: 'ca.expiring', issuer_id: 'iss-local' });
    expect(await notifications('other-issuer')).toEqual([]);
  });

  it('announces a revoked CA at once as critical, with where its certificates are listed', async () => {
    const revoked = await adminApiRequest(
      system,
      'POST',
      `/api/v1/intermediate-cas/${shortLived.id}/revoke`,
      {
        reason: 'keyCompromise',
      },
    );
    expect(revoked.status).toBe(200);
    await eventually(
      async () => received.some((r) => r.body.type === 'ca.revoked'),
      'the CA revocation delivered',
    );
    const [delivered] = received.filter((r) => r.body.type === 'ca.revoked');
    expect(delivered.path).toBe('/hook/pki-team');
    expect(delivered.body).toMatchObject({
      type: 'ca.revoked',
      data: {
        severity: 'critical',
        title: `CA ${shortLived.id} was revoked (keyCompromise); renew what it signed`,
        details: {
          ca_id: shortLived.id,
          reason: 'keyCompromise',
          certificates: `/api/v1/certificates?ca_id=${shortLived.id}`,
        },
      },
    });
    expect(await notifications('other-issuer')).toEqual([]);
    // A revoked CA is not warned about any more.
    await db.query('DELETE FROM issuance.ca_expiry_alerts WHERE ca_id = $1', [shortLived.id]);
    expect((await sweep()).ca_expiry_warnings).toBe(0);
  });
});
