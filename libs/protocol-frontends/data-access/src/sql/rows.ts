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
