import { runMigrations } from '@certlane/platform';
import { createServiceSchemaDatabase, ServiceSchemaDatabase } from '@certlane/testing';
import { Client } from 'pg';
import { RateLimitStore } from './rate-limit.store';

const HOUR = 3600_000;
const BUCKET = HOUR / 60;

/** The rate slots of RFC 8555 6.6 limits (migration 0017) on real Postgres. */
describe(RateLimitStore.name, () => {
  let database: ServiceSchemaDatabase;
  let pg: Client;
  let store: RateLimitStore;
  const start = new Date('2026-11-28T10:00:00Z');
  const at = (ms: number) => new Date(start.getTime() + ms);

  beforeAll(async () => {
    database = await createServiceSchemaDatabase('ratelimits', 'protocol-frontends', runMigrations);
    pg = database.pg;
    store = new RateLimitStore(pg);
  });

  afterAll(() => database?.drop());

  const rows = async (key: string) =>
    (await pg.query('SELECT count(*)::int AS n FROM acme_rate_buckets WHERE key = $1', [key])).rows[0].n;

  it('takes `limit` slots in a window, then refuses with Retry-After until the first slot has left it', async () => {
    const rule = { limit: 3, windowMs: HOUR };
    for (const offset of [0, 10_000, 20_000])
      expect(await store.take('k1', rule, at(offset))).toEqual({ ok: true });
    const refused = await store.take('k1', rule, at(30_000));
    expect(refused.ok).toBe(false);
    // The first slot's bucket ends a minute after it; it leaves the window an hour after that.
    expect(refused.ok === false && refused.retryAfterSeconds).toBe((HOUR + BUCKET - 30_000) / 1000);
    // A refusal takes no slot: the same window refuses again; once their bucket has left, all three are free.
    expect((await store.take('k1', rule, at(HOUR))).ok).toBe(false);
    expect(await store.take('k1', rule, at(HOUR + BUCKET))).toEqual({ ok: true });
  });

  it('never frees a slot early: a bucket counts while any part of it is inside the window', async () => {
    const rule = { limit: 1, windowMs: HOUR };
    expect(await store.take('k2', rule, at(BUCKET - 1))).toEqual({ ok: true });
    // An hour after the slot itself, its bucket is still partly inside the window.
    expect((await store.take('k2', rule, at(HOUR + BUCKET - 1))).ok).toBe(false);
    expect(await store.take('k2', rule, at(HOUR + BUCKET))).toEqual({ ok: true });
  });

  it('keeps at most one row per bucket of a key, whatever the number of slots taken', async () => {
    const rule = { limit: 100_000, windowMs: HOUR };
    for (let i = 0; i < 600; i++) expect((await store.take('k3', rule, at(i * 6_000))).ok).toBe(true);
    // 600 slots over an hour: one row per minute.
    expect(await rows('k3')).toBe(60);
    const counted = await pg.query('SELECT sum(count)::int AS n FROM acme_rate_buckets WHERE key = $1', [
      'k3',
    ]);
    expect(counted.rows[0].n).toBe(600);
  });

  it('counts each key on its own', async () => {
    const rule = { limit: 1, windowMs: HOUR };
    expect(await store.take('k4:a', rule, at(0))).toEqual({ ok: true });
    expect(await store.take('k4:b', rule, at(0))).toEqual({ ok: true });
    expect((await store.take('k4:a', rule, at(1))).ok).toBe(false);
  });

  it('two connections racing for the last slot: exactly one takes it', async () => {
    const other = await database.connect();
    {
      const rule = { limit: 1, windowMs: HOUR };
      const outcomes = await Promise.all([
        store.take('k5', rule, at(0)),
        new RateLimitStore(other).take('k5', rule, at(0)),
      ]);
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    }
  });

  it('prune deletes buckets wholly outside the window and keeps the rest', async () => {
    const rule = { limit: 10, windowMs: HOUR };
    await store.take('k6', rule, at(0));
    await store.take('k6', rule, at(30 * BUCKET));
    await store.prune(HOUR, at(HOUR + BUCKET + 1));
    expect(await rows('k6')).toBe(1);
  });
});
