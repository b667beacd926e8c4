/** SQLSTATE codes the inventory maps to its own error codes. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';

/** The parts of a Postgres error the mapping needs. */
export interface PgViolation {
  code: string;
  constraint?: string;
  table?: string;
}

/**
 * The Postgres error behind `error` (a TypeORM QueryFailedError keeps it as `driverError`; a raw
 * pg error is one itself), or undefined when `error` did not come from Postgres.
 */
export function pgViolation(error: unknown): PgViolation | undefined {
  const candidate = (error as { driverError?: unknown } | null)?.driverError ?? error;
  const code = (candidate as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  const { constraint, table } = candidate as { constraint?: string; table?: string };
  return { code, constraint, table };
}

/** True when `error` is a foreign-key violation, optionally of one of the named constraints. */
export function isForeignKeyViolation(error: unknown, constraints?: readonly string[]): boolean {
  const violation = pgViolation(error);
  return (
    violation?.code === PG_FOREIGN_KEY_VIOLATION &&
    (constraints === undefined || constraints.includes(violation.constraint ?? ''))
  );
}

/** True when `error` is a unique violation of the named constraint (or index). */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const violation = pgViolation(error);
  return violation?.code === PG_UNIQUE_VIOLATION && violation.constraint === constraint;
}
