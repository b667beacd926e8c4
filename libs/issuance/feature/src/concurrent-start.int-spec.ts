import { readdirSync, readFileSync } from 'node:fs';
import {
  createTestDatabase,
  createTlsFixture,
  startServiceProcess,
  TestDatabase,
  testNatsUrl,
  uniqueNamespace,
  validServiceEnv,
} from '@certlane/testing';
import { Client } from 'pg';

/** Replicas of a service started at the same moment on an empty database (spec 9, migrations). */
describe('issuance replicas starting together', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('replicas');
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('both become ready, every migration is applied exactly once, and the baseline seed runs once', async () => {
    const tls = await createTlsFixture();
    const ca = readFileSync(tls.certPath, 'utf8');
    const env = validServiceEnv({
      SERVICE_TLS_CERT_PATH: tls.certPath,
      SERVICE_TLS_KEY_PATH: tls.keyPath,
      SERVICE_DATABASE_URL: database.url,
      SERVICE_NATS_URL: testNatsUrl(),
      SERVICE_NATS_NAMESPACE: uniqueNamespace('replicas'),
      SERVICE_LOG_LEVEL: 'warn',
    });
    const replicas = await Promise.all([
      startServiceProcess('issuance', env, { ca, readyTimeoutMs: 30_000 }),
      startServiceProcess('issuance', env, { ca, readyTimeoutMs: 30_000 }),
    ]);
    try {
      const client = new Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query<{ version: string; n: number }>(
        'SELECT version, count(*)::int AS n FROM issuance.schema_migrations GROUP BY version ORDER BY version',
      );
      const policies = await client.query('SELECT id FROM issuance.renewal_policies');
      const issuers = await client.query('SELECT id, issuing_ca_id FROM issuance.issuers');
      const cas = await client.query(
        'SELECT id, parent_id, status FROM issuance.ca_certificates ORDER BY id',
      );
      const seedAudits = await client.query(
        `SELECT count(*)::int AS n FROM issuance.outbox WHERE subject = 'issuance.v1.audit.recorded'
           AND envelope::text LIKE '%baseline_seed%'`,
      );
      await client.end();
      const shipped = readdirSync('migrations/issuance')
        .filter((file) => /^\d{4}_.+\.sql$/.test(file))
        .map((file) => file.replace(/\.sql$/, ''));
      expect(shipped).toContain('0004_certificates_and_jobs');
      expect(rows.map((r) => r.version)).toEqual([...shipped, 'platform-0001_outbox_inbox'].sort());
      expect(rows.every((r) => r.n === 1)).toBe(true);
      expect(policies.rows).toEqual([{ id: 'rp-default' }]);
      // The baseline seed ran once: one default issuer, one root, one issuing intermediate, one audit record.
      expect(issuers.rows).toEqual([{ id: 'iss-local', issuing_ca_id: 'ca-local-issuing-1' }]);
      expect(cas.rows).toEqual([
        { id: 'ca-local-issuing-1', parent_id: 'ca-local-root', status: 'active' },
        { id: 'ca-local-root', parent_id: null, status: 'active' },
      ]);
      expect(seedAudits.rows).toEqual([{ n: 1 }]);
    } finally {
      const codes = await Promise.all(replicas.map((r) => r.stop()));
      expect(codes).toEqual([0, 0]);
    }
  }, 60_000);
});
