import { CertlaneError, ErrorCode } from '@certlane/contracts';

/** The SQLSTATE codes Certlane maps (PostgreSQL appendix A). */
export const PgCode = {
  UniqueViolation: '23505',
  ForeignKeyViolation: '23503',
  /** ON DELETE/UPDATE RESTRICT; PostgreSQL 18 reports it instead of 23503 (commit 086c84b). */
  RestrictViolation: '23001',
  CheckViolation: '23514',
  NotNullViolation: '23502',
  /** Text longer than its column allows. */
  StringDataRightTruncation: '22001',
  /** A NUL byte in text (`invalid byte sequence for encoding "UTF8": 0x00`). */
  CharacterNotInRepertoire: '22021',
  /** `\u0000` in jsonb (`unsupported Unicode escape sequence`). */
  UntranslatableCharacter: '22P05',
} as const;

/** The parts of a Postgres error a mapping needs. */
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

const matches = (
  violation: PgViolation | undefined,
  codes: readonly string[],
  constraints?: readonly string[],
) =>
  violation !== undefined &&
  codes.includes(violation.code) &&
  (constraints === undefined || constraints.includes(violation.constraint ?? ''));

/** A unique violation, optionally of one of the named constraints (or unique indexes). */
export function isUniqueViolation(error: unknown, constraints?: readonly string[]): boolean {
  return matches(pgViolation(error), [PgCode.UniqueViolation], constraints);
}

/**
 * A write naming a row that does not exist (an insert or update whose foreign key finds no
 * parent), optionally of one of the named constraints.
 */
export function isMissingReference(error: unknown, constraints?: readonly string[]): boolean {
  return matches(pgViolation(error), [PgCode.ForeignKeyViolation], constraints);
}

/**
 * A delete (or key update) of a row that other rows still reference: 23503 under NO ACTION and
 * before PostgreSQL 18, 23001 under RESTRICT from 18 on. Optionally of the named constraints.
 */
export function isStillReferenced(error: unknown, constraints?: readonly string[]): boolean {
  return matches(pgViolation(error), [PgCode.ForeignKeyViolation, PgCode.RestrictViolation], constraints);
}

/**
 * The coded error for a Postgres integrity or data error no caller mapped to a code of its own,
 * or undefined when `error` is none (it stays an internal error). Input bounds (ADR 0040) keep
 * most of these from happening; this keeps the answer a 4xx when one slips through.
 */
export function pgIntegrityError(error: unknown): CertlaneError | undefined {
  const violation = pgViolation(error);
  if (!violation) return undefined;
  const constraint = violation.constraint ? { constraint: violation.constraint } : {};
  switch (violation.code) {
    case PgCode.ForeignKeyViolation:
    case PgCode.RestrictViolation:
      return new CertlaneError(
        ErrorCode.Conflict,
        'the change conflicts with a reference between stored records',
        constraint,
      );
    case PgCode.UniqueViolation:
      return new CertlaneError(ErrorCode.Conflict, 'a record with the same key already exists', constraint);
    case PgCode.CheckViolation:
    case PgCode.NotNullViolation:
      return CertlaneError.validation([
        { field: violation.constraint ?? '', message: 'a value is outside what the store accepts' },
      ]);
    case PgCode.StringDataRightTruncation:
      return new CertlaneError(ErrorCode.InputStringTooLong, 'a value is longer than the store accepts');
    case PgCode.CharacterNotInRepertoire:
    case PgCode.UntranslatableCharacter:
      return new CertlaneError(ErrorCode.InputNulByte, 'a value holds a character the store refuses (NUL)');
    default:
      return undefined;
  }
}
