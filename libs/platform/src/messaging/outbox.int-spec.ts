import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEnvelope, EventOf, EventSubject, RenewalPolicyDto } from '@certlane/contracts';
import {
  createTestDatabase,
  eventually,
  TestDatabase,
  testNatsUrl,
  uniqueNamespace,
} from '@certlane/testing';
import { connect, JSONCodec } from 'nats';
import { DataSource } from 'typeorm';
import { runMigrations } from '../database/migration-runner';
import { consumeManyOnce, consumeOnce } from './inbox';
import { InProcessBus } from './in-process-bus';
import { MessageBus } from './message-bus';
import { NatsBus, streamFor } from './nats-bus';
import { addManyToOutbox, addToOutbox, buildEnvelope, SqlExecutor } from './outbox';
import { OutboxRelay } from './outbox-relay';

/**
 * The transactional outbox against real Postgres and NATS: an event is published if and only if
 * its transaction committed, whatever happens to the relay in between, and consumers that use
 * the inbox process it once.
 */

const SCHEMA = 'issuance';
const CREATED = 'issuance.v1.renewal-policy.created' as const;
type Created = EventEnvelope<EventOf<typeof CREATED>>;

function policy(id: string): RenewalPolicyDto {
  return {
    id,
    name: `Policy ${id}`,
    renewal_window_days: 30,
    max_retries: 3,
    retry_interval_seconds: 3600,
    alert_thresholds_days: [30, 14, 7, 0],
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
  };
}

/** An in-process bus that records the id of every envelope handed to publish (before dedup). */
class RecordingBus extends InProcessBus {
  constructor(
    readonly published: string[] = [],
    private readonly beforePublish?: (envelope: EventEnvelope<unknown>) => Promise<void>,
  ) {
    super({ requestTimeoutMs: 1000, retryDelayMs: 50 });
  }

  override async publish<E extends EventSubject>(
    subject: E,
    envelope: EventEnvelope<EventOf<E>>,
  ): Promise<void> {
    await this.beforePublish?.(envelope);
    this.published.push(envelope.id);
    return super.publish(subject, envelope);
  }
}

// One database for the file: migrated once (platform tables only), shared by both suites.
let database: TestDatabase;
let emptyDir: string;
let dataSource: DataSource;
const namespaces: string[] = [];

const openDataSource = async () => {
  const ds = new DataSource({
    type: 'postgres',
    url: database.url,
    schema: SCHEMA,
    extra: { options: `-c search_path=${SCHEMA},public` },
  });
  await ds.initialize();
  return ds;
};

beforeAll(async () => {
  database = await createTestDatabase('outbox');
  emptyDir = mkdtempSync(join(tmpdir(), 'certlane-outbox-migrations-'));
  await runMigrations({ databaseUrl: database.url, schema: SCHEMA, directory: emptyDir, demoSeed: false });
  dataSource = await openDataSource();
});

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
  rmSync(emptyDir, { recursive: true, force: true });
  // Streams outlive connections: remove the ones these tests created.
  const nc = await connect({ servers: [testNatsUrl()] });
  const jsm = await nc.jetstreamManager();
  for (const namespace of namespaces) {
    await jsm.streams.delete(streamFor(CREATED, namespace).name).catch(() => undefined);
  }
  await nc.close();
});

describe(OutboxRelay.name, () => {
  const cleanup: (() => Promise<unknown>)[] = [];

  const natsBus = async (namespace: string) => {
    const bus = await NatsBus.connect({
      servers: [testNatsUrl()],
      name: `certlane-outbox-test-${namespace}`,
      requestTimeoutMs: 5000,
      namespace,
    });
    cleanup.push(() => bus.close());
    return bus;
  };

  const newNamespace = () => {
    const namespace = uniqueNamespace('outbox');
    namespaces.push(namespace);
    return namespace;
  };

  const relay = (
    bus: MessageBus,
    options: { intervalMs?: number; batchSize?: number } = {},
    ds = dataSource,
  ) => {
    const created = new OutboxRelay(ds, bus, { schema: SCHEMA, ...options });
    cleanup.push(() => created.stop());
    return created;
  };

  /** Commits one event through the outbox, as a service's write path does. */
  const commitEvent = (id: string): Promise<Created> =>
    dataSource.transaction((manager) => addToOutbox(manager, SCHEMA, CREATED, policy(id), 'user-1'));

  const outboxRows = async (): Promise<
    { id: string; published: boolean; attempts: number; last_error: string }[]
  > =>
    dataSource.query(
      `SELECT id, published_at IS NOT NULL AS published, attempts, last_error FROM "${SCHEMA}".outbox ORDER BY seq`,
    );

  const recordingConsumer = async (bus: MessageBus, consumer: string) => {
    const received: Created[] = [];
    await bus.consume(CREATED, consumer, async (event) => {
      received.push(event);
    });
    return received;
  };

  beforeEach(async () => {
    await dataSource.query(`TRUNCATE "${SCHEMA}".outbox, "${SCHEMA}".inbox`);
  });

  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('publishes pending rows in commit order and marks them published', async () => {
    const bus = new RecordingBus();
    const events = [];
    for (let i = 0; i < 5; i++) events.push(await commitEvent(`rp-${i}`));

    const published = await relay(bus).relayOnce();

    expect(published).toBe(5);
    expect(bus.published).toEqual(events.map((event) => event.id));
    expect(await outboxRows()).toEqual(
      events.map((event) => ({ id: event.id, published: true, attempts: 0, last_error: null })),
    );
    expect(await relay(bus).relayOnce()).toBe(0);
    expect(bus.published).toHaveLength(5);
  });

  it('writes several events in one statement, in order, published like single ones', async () => {
    const bus = new RecordingBus();
    const single = await commitEvent('rp-before');
    const many = await dataSource.transaction((manager) =>
      addManyToOutbox(
        manager,
        SCHEMA,
        ['rp-a', 'rp-b', 'rp-c'].map((id) => ({ subject: CREATED, data: policy(id), actorId: 'user-2' })),
      ),
    );
    expect(await dataSource.transaction((manager) => addManyToOutbox(manager, SCHEMA, []))).toEqual([]);
    expect(many.map((e) => [e.subject, e.data.id, e.actor_id])).toEqual([
      [CREATED, 'rp-a', 'user-2'],
      [CREATED, 'rp-b', 'user-2'],
      [CREATED, 'rp-c', 'user-2'],
    ]);
    expect(await relay(bus).relayOnce()).toBe(4);
    expect(bus.published).toEqual([single.id, ...many.map((e) => e.id)]);
    const stored: { envelope: Created }[] = await dataSource.query(
      `SELECT envelope FROM "${SCHEMA}".outbox ORDER BY seq`,
    );
    expect(stored.map((row) => row.envelope)).toEqual([single, ...many]);
  });

  it('never publishes an event whose transaction rolled back', async () => {
    const bus = new RecordingBus();
    const received = await recordingConsumer(bus, 'rollback-watcher');
    let rolledBack: Created | undefined;

    await expect(
      dataSource.transaction(async (manager) => {
        rolledBack = await addToOutbox(manager, SCHEMA, CREATED, policy('rp-rolled-back'));
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    const committed = await commitEvent('rp-committed');
    await relay(bus).relayOnce();

    await eventually(() => received.length >= 1, 'the committed event');
    expect(rolledBack).toBeDefined();
    expect(bus.published).toEqual([committed.id]);
    expect(received.map((event) => event.id)).toEqual([committed.id]);
    expect((await outboxRows()).map((row) => row.id)).toEqual([committed.id]);
  });

  it('publishes an event committed while no relay ran once a relay starts again', async () => {
    const namespace = newNamespace();
    const received = await recordingConsumer(await natsBus(namespace), 'relay-restart');

    const relayA = relay(await natsBus(namespace), { intervalMs: 50 });
    relayA.start();
    const first = await commitEvent('rp-before-crash');
    relayA.kick();
    await eventually(() => received.length >= 1, 'the event relayed by relay A');
    await relayA.stop();

    const orphan = await commitEvent('rp-during-outage');
    expect((await outboxRows()).find((row) => row.id === orphan.id)).toMatchObject({ published: false });

    const relayB = relay(await natsBus(namespace), { intervalMs: 50 });
    relayB.start();
    await eventually(() => received.length >= 2, 'the event committed while no relay ran');
    const last = await commitEvent('rp-after-restart');
    relayB.kick();
    await eventually(() => received.length >= 3, 'the event committed after relay B started');

    expect(received.map((event) => event.id)).toEqual([first.id, orphan.id, last.id]);
    expect(received[1]).toEqual(orphan);
    // the relay marks a row in the transaction that published it, which may commit after delivery
    await eventually(async () => (await outboxRows()).every((row) => row.published), 'every row marked');
  });

  it('does not let consumeOnce process an event twice after a crash between publish and marking', async () => {
    const namespace = newNamespace();
    const bus = await natsBus(namespace);
    const deliveries: string[] = [];
    const work: string[] = [];
    const skipped: string[] = [];
    await bus.consume(CREATED, 'inbox-consumer', async (event) => {
      deliveries.push(event.id);
      const ran = await consumeOnce(dataSource, SCHEMA, 'inbox-consumer', event, async (manager) => {
        await manager.query('SELECT 1');
        work.push(event.id);
      });
      if (!ran) skipped.push(event.id);
    });

    // The relay published the row, then crashed before marking it: the row is still pending.
    const event = await commitEvent('rp-crash');
    await bus.publish(CREATED, event);
    await eventually(() => work.includes(event.id), 'the first delivery to be processed');
    expect((await outboxRows())[0]).toMatchObject({ id: event.id, published: false });

    // The next relay publishes it again and marks it.
    expect(await relay(bus).relayOnce()).toBe(1);
    expect((await outboxRows())[0]).toMatchObject({ id: event.id, published: true });

    // A re-publish that got past the bus's deduplication (outside its window) reaches the
    // consumer a second time: the inbox must skip it.
    const nc = await connect({ servers: [testNatsUrl()] });
    cleanup.push(() => nc.close());
    await nc.jetstream().publish(`${namespace}.${CREATED}`, JSONCodec().encode(event));
    const marker = await commitEvent('rp-marker');
    await relay(bus).relayOnce();
    await eventually(() => work.includes(marker.id), 'the marker event');

    expect(deliveries.filter((id) => id === event.id).length).toBeGreaterThanOrEqual(2);
    expect(work).toEqual([event.id, marker.id]);
    expect(skipped).toContain(event.id);
    const inbox: { n: number }[] = await dataSource.query(
      `SELECT count(*)::int AS n FROM "${SCHEMA}".inbox WHERE consumer = 'inbox-consumer' AND event_id = $1`,
      [event.id],
    );
    expect(inbox[0].n).toBe(1);
  });

  it('lets two relays running at the same time publish each row exactly once and in commit order', async () => {
    const rows = 60;
    await dataSource.transaction(async (manager) => {
      for (let i = 0; i < rows; i++) await addToOutbox(manager, SCHEMA, CREATED, policy(`rp-bulk-${i}`));
    });
    const committedOrder = (await outboxRows()).map((row) => row.id);
    const secondDataSource = await openDataSource();
    cleanup.push(() => secondDataSource.destroy());

    // Relay A stops inside its first publish, holding its pass open.
    let releaseA!: () => void;
    const gate = new Promise<void>((resolve) => (releaseA = resolve));
    let aInsidePass = false;
    const published: string[] = [];
    const busA = new RecordingBus(published, async () => {
      if (aInsidePass) return;
      aInsidePass = true;
      await gate;
    });
    const busB = new RecordingBus(published);
    const relayA = relay(busA, { batchSize: 25 });
    const relayB = relay(busB, { batchSize: 25 }, secondDataSource);

    const passA = relayA.relayOnce();
    await eventually(() => aInsidePass, 'relay A to start publishing');
    expect(await relayB.relayOnce()).toBe(0);
    releaseA();
    expect(await passA).toBe(25);

    for (let round = 0; round < 20; round++) {
      const [a, b] = await Promise.all([relayA.relayOnce(), relayB.relayOnce()]);
      if (a === 0 && b === 0 && (await outboxRows()).every((row) => row.published)) break;
    }

    expect(published).toEqual(committedOrder);
    const state = await outboxRows();
    expect(state.filter((row) => row.published)).toHaveLength(rows);
  });

  it('records a failed publish on the row and publishes it on a later pass', async () => {
    let failNext = true;
    const bus = new RecordingBus([], async () => {
      if (failNext) {
        failNext = false;
        throw new Error('NATS unavailable');
      }
    });
    const errors: unknown[] = [];
    const failing = await commitEvent('rp-fails-once');
    const following = await commitEvent('rp-follows');
    const subject = new OutboxRelay(dataSource, bus, { schema: SCHEMA, onError: (e) => errors.push(e) });

    expect(await subject.relayOnce()).toBe(0);
    expect(await outboxRows()).toEqual([
      { id: failing.id, published: false, attempts: 1, last_error: 'NATS unavailable' },
      { id: following.id, published: false, attempts: 0, last_error: null },
    ]);
    expect(errors).toHaveLength(1);

    expect(await subject.relayOnce()).toBe(2);
    expect(bus.published).toEqual([failing.id, following.id]);
    expect((await outboxRows()).map((row) => row.published)).toEqual([true, true]);
  });

  it('drains a backlog larger than one batch without waiting for the poll interval', async () => {
    const bus = new RecordingBus();
    for (let i = 0; i < 35; i++) await commitEvent(`rp-backlog-${i}`);
    const running = relay(bus, { batchSize: 10, intervalMs: 60_000 });

    running.start();

    await eventually(() => bus.published.length >= 35, 'the whole backlog');
    expect(new Set(bus.published).size).toBe(35);
  });

  it('publishes soon after kick() instead of at the next poll', async () => {
    const bus = new RecordingBus();
    const running = relay(bus, { intervalMs: 60_000 });
    running.start();
    const event = await commitEvent('rp-kicked');

    running.kick();

    await eventually(() => bus.published.includes(event.id), 'the kicked event');
    await eventually(async () => (await outboxRows())[0].published, 'the row to be marked');
  });

  it('stops publishing once stopped', async () => {
    const bus = new RecordingBus();
    const running = relay(bus, { intervalMs: 20 });
    running.start();
    const first = await commitEvent('rp-while-running');
    await eventually(() => bus.published.includes(first.id), 'the first event');

    await running.stop();
    running.kick();
    const second = await commitEvent('rp-after-stop');
    const other = relay(new RecordingBus(), {});
    expect(await other.relayOnce()).toBe(1);

    expect(bus.published).toEqual([first.id]);
    expect((await outboxRows()).find((row) => row.id === second.id)).toMatchObject({ published: true });
  });
});

describe(consumeOnce.name, () => {
  beforeAll(async () => {
    await dataSource.query(
      `CREATE TABLE "${SCHEMA}".effects (event_id uuid NOT NULL, consumer text NOT NULL)`,
    );
  });

  const effectsOf = async (eventId: string): Promise<number> =>
    (
      await dataSource.query(`SELECT count(*)::int AS n FROM "${SCHEMA}".effects WHERE event_id = $1`, [
        eventId,
      ])
    )[0].n;

  const recordEffect = (event: EventEnvelope<unknown>, consumer: string) => async (manager: SqlExecutor) => {
    await manager.query(`INSERT INTO "${SCHEMA}".effects (event_id, consumer) VALUES ($1, $2)`, [
      event.id,
      consumer,
    ]);
  };

  it('runs the work for a redelivered event only once per consumer', async () => {
    const event = buildEnvelope(CREATED, policy('rp-once'));

    const first = await consumeOnce(dataSource, SCHEMA, 'notifier', event, recordEffect(event, 'notifier'));
    const again = await consumeOnce(dataSource, SCHEMA, 'notifier', event, recordEffect(event, 'notifier'));
    const otherConsumer = await consumeOnce(dataSource, SCHEMA, 'audit', event, recordEffect(event, 'audit'));

    expect([first, again, otherConsumer]).toEqual([true, false, true]);
    expect(await effectsOf(event.id)).toBe(2);
  });

  it('runs the work once when two replicas get the same event at the same time', async () => {
    const event = buildEnvelope(CREATED, policy('rp-race'));

    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        consumeOnce(dataSource, SCHEMA, 'racer', event, recordEffect(event, 'racer')),
      ),
    );

    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(await effectsOf(event.id)).toBe(1);
  });

  it('forgets the event when the work fails, so a redelivery processes it', async () => {
    const event = buildEnvelope(CREATED, policy('rp-retry'));

    await expect(
      consumeOnce(dataSource, SCHEMA, 'retrier', event, async (manager) => {
        await recordEffect(event, 'retrier')(manager);
        throw new Error('downstream failed');
      }),
    ).rejects.toThrow('downstream failed');
    expect(await effectsOf(event.id)).toBe(0);

    expect(await consumeOnce(dataSource, SCHEMA, 'retrier', event, recordEffect(event, 'retrier'))).toBe(
      true,
    );
    expect(await effectsOf(event.id)).toBe(1);
  });
});

describe(consumeManyOnce.name, () => {
  const effects = async (consumer: string): Promise<string[]> =>
    (
      await dataSource.query(
        `SELECT event_id::text AS id FROM "${SCHEMA}".effects WHERE consumer = $1 ORDER BY event_id`,
        [consumer],
      )
    ).map((row: { id: string }) => row.id);

  const recordAll = (consumer: string) => async (manager: SqlExecutor, fresh: EventEnvelope<unknown>[]) => {
    for (const event of fresh)
      await manager.query(`INSERT INTO "${SCHEMA}".effects (event_id, consumer) VALUES ($1, $2)`, [
        event.id,
        consumer,
      ]);
  };

  it('works each event of a batch once: seen ones and repeats inside the batch are left out', async () => {
    const [a, b, c] = ['rp-many-a', 'rp-many-b', 'rp-many-c'].map((id) => buildEnvelope(CREATED, policy(id)));
    expect(await consumeManyOnce(dataSource, SCHEMA, 'batcher', [a, b], recordAll('batcher'))).toBe(2);
    expect(await consumeManyOnce(dataSource, SCHEMA, 'batcher', [b, c, c, a], recordAll('batcher'))).toBe(1);
    expect(await consumeManyOnce(dataSource, SCHEMA, 'batcher', [a, c], recordAll('batcher'))).toBe(0);
    expect(await effects('batcher')).toEqual([a.id, b.id, c.id].sort());
  });

  it('forgets the whole batch when the work fails, so a redelivery processes every event', async () => {
    const [a, b] = ['rp-many-fail-a', 'rp-many-fail-b'].map((id) => buildEnvelope(CREATED, policy(id)));
    await expect(
      consumeManyOnce(dataSource, SCHEMA, 'batch-retrier', [a, b], async (manager, fresh) => {
        await recordAll('batch-retrier')(manager, fresh);
        throw new Error('downstream failed');
      }),
    ).rejects.toThrow('downstream failed');
    expect(await effects('batch-retrier')).toEqual([]);
    expect(
      await consumeManyOnce(dataSource, SCHEMA, 'batch-retrier', [a, b], recordAll('batch-retrier')),
    ).toBe(2);
    expect(await effects('batch-retrier')).toEqual([a.id, b.id].sort());
  });
});
