import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, eventually, TestDatabase } from '@certlane/testing';
import { DataSource } from 'typeorm';
import { runMigrations } from '../database/migration-runner';
import { InProcessBus } from './in-process-bus';
import { OutboxRelay } from './outbox-relay';

/** The relay's own statements on real Postgres, each part on an outbox of its own schema. */
describe(OutboxRelay.name, () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('relay');
    for (const schema of ['retention', 'scan', 'failure'])
      await runMigrations({
        databaseUrl: database.url,
        schema,
        directory: mkdtempSync(join(tmpdir(), 'mig-')),
        demoSeed: false,
      });
    dataSource = await new DataSource({ type: 'postgres', url: database.url }).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  describe('retention', () => {
    it('deletes published outbox rows and inbox ids past retention, and keeps everything else', async () => {
      await dataSource.query(`
        INSERT INTO retention.outbox (id, subject, envelope, published_at) VALUES
          (gen_random_uuid(), 's', '{}', now() - interval '8 days'),
          (gen_random_uuid(), 's', '{}', now() - interval '6 days'),
          (gen_random_uuid(), 's', '{}', NULL);
        UPDATE retention.outbox SET created_at = now() - interval '9 days' WHERE published_at IS NULL;
        INSERT INTO retention.inbox (consumer, event_id, processed_at) VALUES
          ('c', gen_random_uuid(), now() - interval '31 days'),
          ('c', gen_random_uuid(), now() - interval '1 day');`);
      const relay = new OutboxRelay(dataSource, new InProcessBus({ requestTimeoutMs: 1000 }), {
        schema: 'retention',
      });
      expect(await relay.prune()).toBe(2);
      const outbox: { published: boolean }[] = await dataSource.query(
        'SELECT published_at IS NOT NULL AS published FROM retention.outbox ORDER BY seq',
      );
      expect(outbox).toEqual([{ published: true }, { published: false }]);
      expect((await dataSource.query('SELECT count(*)::int AS n FROM retention.inbox'))[0].n).toBe(1);
    });
  });

  /**
   * Published rows stay in the outbox (for inspection), so each one leaves a dead entry in the
   * partial index of unpublished rows until a vacuum. The relay's own reads must mark those entries
   * dead as they pass them (an index scan does; a bitmap scan, which the planner picks whenever the
   * batch size exceeds its estimate of pending rows, never does), or every pass visits every row
   * published since the last vacuum.
   */
  describe('pending-row scan', () => {
    // Only the relay's reads may clean the index here.
    beforeAll(() => dataSource.query('ALTER TABLE scan.outbox SET (autovacuum_enabled = false)'));

    const addRows = (count: number) =>
      dataSource.query(
        `INSERT INTO scan.outbox (id, subject, envelope)
         SELECT id, 'scan.v1.test', jsonb_build_object('id', id, 'data', repeat('x', 600)) FROM (SELECT gen_random_uuid() AS id FROM generate_series(1, $1)) g`,
        [count],
      );

    /** Heap and index pages an index scan of the pending rows reads now. */
    async function pagesReadByPendingScan(): Promise<number> {
      return dataSource.transaction(async (manager) => {
        await manager.query('SET LOCAL enable_bitmapscan = off');
        await manager.query('SET LOCAL enable_seqscan = off');
        const [row] = await manager.query(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
           SELECT seq FROM scan.outbox WHERE published_at IS NULL ORDER BY seq`,
        );
        const plan = row['QUERY PLAN'][0].Plan;
        return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
      });
    }

    /** Index entries of the pending-row index marked dead (LP_DEAD), read from its leaf pages. */
    async function deadIndexEntries(): Promise<number> {
      const [row] = await dataSource.query(
        `SELECT count(*) FILTER (WHERE i.dead)::int AS n
           FROM generate_series(1, (pg_relation_size('scan.outbox_unpublished_idx') / 8192)::int - 1) AS b,
                LATERAL bt_page_items('scan.outbox_unpublished_idx', b) AS i`,
      );
      return row.n;
    }

    it('leaves the index entries of published rows marked dead, so a pass reads only what is pending', async () => {
      const relay = new OutboxRelay(dataSource, new InProcessBus({ requestTimeoutMs: 1000 }), {
        schema: 'scan',
        batchSize: 500,
      });
      // A table never analyzed (as a new service's is until autovacuum comes by): the planner's
      // default estimate of pending rows is below the batch size, which makes a bitmap scan cheapest.
      await addRows(4000);
      while ((await relay.relayOnce()) > 0);
      // A read marks an entry dead only once no snapshot can still see its row pending; when one
      // held that horizon back during a read (a busy machine), the next relay read marks what is
      // left. Counted on the index pages themselves (pageinspect reads them without marking
      // anything), so only the relay's reads can make this pass: a bitmap scan marks nothing.
      await dataSource.query('CREATE EXTENSION IF NOT EXISTS pageinspect');
      await eventually(async () => {
        expect(await relay.relayOnce()).toBe(0);
        return (await deadIndexEntries()) >= 4000;
      }, "the relay's reads to mark the published rows' index entries dead");
      const pending = await dataSource.query(
        'SELECT count(*)::int AS n FROM scan.outbox WHERE published_at IS NULL',
      );
      expect(pending[0].n).toBe(0);
      // 4,000 dead entries left unmarked cost a heap visit each (thousands of page reads).
      expect(await pagesReadByPendingScan()).toBeLessThan(100);
    });
  });

  describe('a publish that stops part way', () => {
    it('marks what was published, counts the attempt on the first row left with its error, and keeps it pending', async () => {
      await dataSource.query(`
        INSERT INTO failure.outbox (id, subject, envelope)
        SELECT id, 's', jsonb_build_object('id', id, 'subject', 's', 'data', n)
          FROM (SELECT gen_random_uuid() AS id, n FROM generate_series(1, 3) AS n) AS rows`);
      const bus = new InProcessBus({ requestTimeoutMs: 1000 });
      const published: string[] = [];
      bus.publishMany = async (events) => {
        published.push(...events.slice(0, 1).map((event) => event.json));
        return { published: 1, error: new Error("stream full: it's 'quoted'") };
      };
      const errors: unknown[] = [];
      const relay = new OutboxRelay(dataSource, bus, {
        schema: 'failure',
        onError: (error) => errors.push(error),
      });
      expect(await relay.relayOnce()).toBe(1);
      const rows: { published: boolean; attempts: number; last_error: string | null }[] =
        await dataSource.query(
          'SELECT published_at IS NOT NULL AS published, attempts, last_error FROM failure.outbox ORDER BY seq',
        );
      expect(rows).toEqual([
        { published: true, attempts: 0, last_error: null },
        { published: false, attempts: 1, last_error: "stream full: it's 'quoted'" },
        { published: false, attempts: 0, last_error: null },
      ]);
      expect(published).toHaveLength(1);
      expect(errors).toHaveLength(1);
    });

    it('leaves every row pending when the bus throws, and the connection usable', async () => {
      const bus = new InProcessBus({ requestTimeoutMs: 1000 });
      bus.publishMany = async () => {
        throw new Error('bus down');
      };
      const relay = new OutboxRelay(dataSource, bus, { schema: 'failure' });
      await expect(relay.relayOnce()).rejects.toThrow('bus down');
      const pending = await dataSource.query(
        'SELECT count(*)::int AS n FROM failure.outbox WHERE published_at IS NULL',
      );
      expect(pending[0].n).toBe(2);
      // Nothing is left locked: a pass with a working bus publishes both.
      const working = new OutboxRelay(dataSource, new InProcessBus({ requestTimeoutMs: 1000 }), {
        schema: 'failure',
      });
      expect(await working.relayOnce()).toBe(2);
    });
  });
});
