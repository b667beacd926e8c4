import { randomBytes } from 'node:crypto';
import { SqlExecutor } from '@certlane/platform';

/**
 * The rows of a query, whichever executor ran it: TypeORM answers UPDATE/DELETE with
 * [rows, affected] and everything else with rows; a pg Client answers a Result with `rows`.
 */
export async function rowsOf<T>(
  executor: SqlExecutor,
  sql: string,
  parameters: unknown[] = [],
): Promise<T[]> {
  const result = (await executor.query(sql, parameters)) as unknown;
  if (Array.isArray(result)) return (Array.isArray(result[0]) ? result[0] : result) as T[];
  if (result && typeof result === 'object' && Array.isArray((result as { rows?: unknown }).rows))
    return (result as { rows: T[] }).rows;
  return [];
}

/** The `n` a statement ending in `SELECT count(*)::int AS n` answers. */
export async function countOf(executor: SqlExecutor, sql: string, parameters: unknown[]): Promise<number> {
  const [row] = await rowsOf<{ n: number }>(executor, sql, parameters);
  return row.n;
}

/** An unguessable identifier for URLs and tokens: 16 random bytes (128 bits), base64url. */
export function randomId(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * A read of one row by id that can also ride along another statement (the nonce and account read
 * of an ACME request, ADR 0067): `select` is a SELECT of at most one row with an `id` column,
 * naming the id as `idParameter`.
 */
export interface RowRead<T> {
  id: string;
  select(idParameter: string): string;
  /** The row as T; null when there is none. */
  read(row: Record<string, unknown>): T;
}

/** Runs a RowRead on its own. */
export async function readRow<T>(executor: SqlExecutor, read: RowRead<T>): Promise<T | null> {
  const [row] = await rowsOf<Record<string, unknown>>(executor, read.select('$1'), [read.id]);
  return row ? read.read(row) : null;
}

/** A count to add to a profile's counter of an outcome (spec 6.4). */
export interface CounterTick {
  profileId: string;
  outcome: string;
  count: number;
}

/**
 * Adds several counts to a profile counter table (`est_profile_counters`, `scep_profile_counters`)
 * in one statement, rows in key order so two replicas' batches cannot deadlock on each other;
 * the counters' new totals, in the order given (a key given twice is added twice).
 */
export async function tickCounters(
  executor: SqlExecutor,
  table: 'est_profile_counters' | 'scep_profile_counters',
  ticks: readonly CounterTick[],
): Promise<number[]> {
  const summed = new Map<string, CounterTick>();
  for (const tick of ticks) {
    const key = `${tick.profileId} ${tick.outcome}`;
    const sum = summed.get(key);
    summed.set(key, sum ? { ...sum, count: sum.count + tick.count } : { ...tick });
  }
  const sorted = [...summed.values()].sort(
    (a, b) => a.profileId.localeCompare(b.profileId) || a.outcome.localeCompare(b.outcome),
  );
  if (sorted.length === 0) return [];
  const rows = await rowsOf<{ profile_id: string; outcome: string; count: string }>(
    executor,
    `INSERT INTO ${table} (profile_id, outcome, count)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[])
     ON CONFLICT (profile_id, outcome) DO UPDATE SET count = ${table}.count + EXCLUDED.count
     RETURNING profile_id, outcome, count`,
    [sorted.map((t) => t.profileId), sorted.map((t) => t.outcome), sorted.map((t) => t.count)],
  );
  const totals = new Map(rows.map((row) => [`${row.profile_id} ${row.outcome}`, Number(row.count)]));
  return ticks.map((t) => totals.get(`${t.profileId} ${t.outcome}`) ?? 0);
}
