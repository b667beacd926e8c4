import { join, resolve } from 'node:path';
import { findSchemaDrift, runMigrations } from '@certlane/platform';
import { createTestDatabase, TestDatabase } from '@certlane/testing';
import { DataSource } from 'typeorm';
import { RenewalPolicyEntity } from '@certlane/issuance-governance';

/** The issuance entities agree with the schema that migrations/issuance produces. */
describe('issuance schema', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('issschema');
    await runMigrations({
      databaseUrl: database.url,
      schema: 'issuance',
      directory: join(resolve(__dirname, '../../../..'), 'migrations', 'issuance'),
      demoSeed: true,
    });
    dataSource = await new DataSource({
      type: 'postgres',
      url: database.url,
      schema: 'issuance',
      entities: [RenewalPolicyEntity],
      synchronize: false,
    }).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('has no drift between entities and migrated tables', async () => {
    expect(await findSchemaDrift(dataSource, 'issuance')).toEqual([]);
  });

  it('reports drift when a mapped column is missing', async () => {
    await dataSource.query('ALTER TABLE issuance.renewal_policies RENAME COLUMN max_retries TO retries_max');
    try {
      expect(await findSchemaDrift(dataSource, 'issuance')).toEqual([
        'renewal_policies.max_retries is mapped by RenewalPolicyEntity but missing in the database',
      ]);
    } finally {
      await dataSource.query(
        'ALTER TABLE issuance.renewal_policies RENAME COLUMN retries_max TO max_retries',
      );
    }
  });

  it('holds the default policy and, with the demo seed, the demo policies', async () => {
    const rows: { id: string }[] = await dataSource.query(
      'SELECT id FROM issuance.renewal_policies ORDER BY id',
    );
    expect(rows.map((r) => r.id)).toEqual(['rp-default', 'rp-demo-long-lived', 'rp-demo-short-lived']);
  });

  it('refuses out-of-range values in the database itself (CHECK constraints)', async () => {
    await expect(
      dataSource.query(
        `INSERT INTO issuance.renewal_policies (id, name, renewal_window_days, max_retries, retry_interval_seconds) VALUES ('rp-x', 'x', 0, 0, 60)`,
      ),
    ).rejects.toThrow(/check constraint/);
  });
});
