import { readFileSync } from 'node:fs';
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

  it('both become ready, and every migration is applied exactly once', async () => {
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
      await client.end();
      expect(rows.map((r) => r.version)).toEqual([
        '0001_renewal_policies',
        '0002_default_renewal_policy',
        'platform-0001_outbox_inbox',
      ]);
      expect(rows.every((r) => r.n === 1)).toBe(true);
      expect(policies.rows).toEqual([{ id: 'rp-default' }]);
    } finally {
      const codes = await Promise.all(replicas.map((r) => r.stop()));
      expect(codes).toEqual([0, 0]);
    }
  }, 60_000);
});
