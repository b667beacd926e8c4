/**
 * The rows of an `UPDATE ... RETURNING` or `DELETE ... RETURNING` through TypeORM's raw `query`,
 * which answers those with `[rows, affectedCount]` (an INSERT answers with the rows).
 */
export function returningRows<T>(result: unknown): T[] {
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}
