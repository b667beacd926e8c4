import { ErrorCode } from '@certlane/contracts';
import {
  isMissingReference,
  isStillReferenced,
  isUniqueViolation,
  pgIntegrityError,
  pgViolation,
} from './pg-errors';

/** A TypeORM QueryFailedError keeps the pg error as `driverError`. */
const queryFailed = (code: string, constraint?: string, table?: string) =>
  Object.assign(new Error('query failed'), { driverError: { code, constraint, table } });

describe('Postgres error mapping', () => {
  it('reads the pg error behind a TypeORM error, and a raw pg error', () => {
    expect(pgViolation(queryFailed('23505', 'issuers_name_key'))).toEqual({
      code: '23505',
      constraint: 'issuers_name_key',
      table: undefined,
    });
    expect(pgViolation({ code: '23503', constraint: 'c', table: 't' })).toEqual({
      code: '23503',
      constraint: 'c',
      table: 't',
    });
    expect(pgViolation(new Error('not pg'))).toBeUndefined();
    expect(pgViolation(null)).toBeUndefined();
  });

  it('counts ON DELETE RESTRICT as still referenced on PostgreSQL 18 (23001) as before (23503)', () => {
    expect(isStillReferenced(queryFailed('23001', 'certificates_renewal_policy_id_fkey'))).toBe(true);
    expect(isStillReferenced(queryFailed('23503', 'certificates_renewal_policy_id_fkey'))).toBe(true);
    expect(isStillReferenced(queryFailed('23001', 'x'), ['certificates_renewal_policy_id_fkey'])).toBe(false);
    expect(isStillReferenced(queryFailed('23505'))).toBe(false);
  });

  it('tells a missing reference (a write naming no parent) and a unique violation by constraint', () => {
    expect(isMissingReference(queryFailed('23503', 'owners_team_id_fkey'), ['owners_team_id_fkey'])).toBe(
      true,
    );
    expect(isMissingReference(queryFailed('23001', 'owners_team_id_fkey'))).toBe(false);
    expect(isUniqueViolation(queryFailed('23505', 'teams_name_key'), ['teams_name_key'])).toBe(true);
    expect(isUniqueViolation(queryFailed('23505', 'teams_pkey'), ['teams_name_key'])).toBe(false);
    expect(isUniqueViolation(queryFailed('23505'))).toBe(true);
  });

  it.each([
    ['23001', ErrorCode.Conflict],
    ['23503', ErrorCode.Conflict],
    ['23505', ErrorCode.Conflict],
    ['23514', ErrorCode.ValidationFailed],
    ['23502', ErrorCode.ValidationFailed],
    ['22001', ErrorCode.InputStringTooLong],
    ['22021', ErrorCode.InputNulByte],
    ['22P05', ErrorCode.InputNulByte],
  ])('maps an unmapped %s to %s, never an internal error', (code, expected) => {
    expect(pgIntegrityError(queryFailed(code, 'some_constraint'))?.code).toBe(expected);
  });

  it('gives a check violation the one validation details shape', () => {
    expect(pgIntegrityError(queryFailed('23514', 'policy_rules_config_check'))?.details).toEqual({
      fields: [{ field: 'policy_rules_config_check', message: 'a value is outside what the store accepts' }],
    });
  });

  it('leaves other errors alone', () => {
    expect(pgIntegrityError(queryFailed('40001'))).toBeUndefined();
    expect(pgIntegrityError(new Error('boom'))).toBeUndefined();
  });
});
