import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '@certlane/testing';
import { DataSource } from 'typeorm';
import { runMigrations } from '../database/migration-runner';
import { InProcessBus } from './in-process-bus';
import { OutboxRelay } from './outbox-relay';

describe(`${OutboxRelay.name} retention`, () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('prune');
    await runMigrations({
      databaseUrl: database.url,
      schema: 'notifier',
      directory: mkdtempSync(join(tmpdir(), 'mig-')),
      demoSeed: false,
    });
    dataSource = await new DataSource({ type: 'postgres', url: database.url }).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('deletes published outbox rows and inbox ids past retention, and keeps everything else', async () => {
    await dataSource.query(`
      INSERT INTO notifier.outbox (id, subject, envelope, published_at) VALUES
        (gen_random_uuid(), 's', '{}', now() - interval '8 days'),
        (gen_random_uuid(), 's', '{}', now() - interval '6 days'),
        (gen_random_uuid(), 's', '{}', NULL);
      UPDATE notifier.outbox SET created_at = now() - interval '9 days' WHERE published_at IS NULL;
      INSERT INTO notifier.inbox (consumer, event_id, processed_at) VALUES
        ('c', gen_random_uuid(), now() - interval '31 days'),
        ('c', gen_random_uuid(), now() - interval '1 day');`);
    const relay = new OutboxRelay(dataSource, new InProcessBus({ requestTimeoutMs: 1000 }), {
      schema: 'notifier',
    });
    expect(await relay.prune()).toBe(2);
    const outbox: { published: boolean }[] = await dataSource.query(
      'SELECT published_at IS NOT NULL AS published FROM notifier.outbox ORDER BY seq',
    );
    expect(outbox).toEqual([{ published: true }, { published: false }]);
    expect((await dataSource.query('SELECT count(*)::int AS n FROM notifier.inbox'))[0].n).toBe(1);
  });
});
