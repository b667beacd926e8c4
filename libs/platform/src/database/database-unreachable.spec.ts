import { ErrorCode } from '@certlane/contracts';
import {
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
} from 'typeorm';
import { databaseOutageError, isDatabaseUnreachable } from './database-unreachable';

/** An error as node-postgres raises it: an Error with the server's SQLSTATE in `code`. */
const pgError = (code: string, message = 'server error') => Object.assign(new Error(message), { code });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });

describe(isDatabaseUnreachable.name, () => {
  it.each([
    ['a refused connection', socketError('ECONNREFUSED')],
    ['a reset connection', socketError('ECONNRESET')],
    ['a connect timeout at the socket', socketError('ETIMEDOUT')],
    ['an unknown host', socketError('ENOTFOUND')],
    ['57P01 admin_shutdown', pgError('57P01', 'terminating connection due to administrator command')],
    ['57P02 crash_shutdown', pgError('57P02')],
    ['57P03 cannot_connect_now', pgError('57P03', 'the database system is starting up')],
    ['53300 too_many_connections', pgError('53300')],
    ['08006 connection_failure', pgError('08006')],
    ['08P01 protocol_violation (class 08)', pgError('08P01')],
    ['a connection lost mid-query', new Error('Connection terminated unexpectedly')],
    ['a pool connect timeout', new Error('timeout exceeded when trying to connect')],
    [
      'a lost connection inside a TypeORM QueryFailedError',
      new QueryFailedError('SELECT 1', [], new Error('Connection terminated unexpectedly')),
    ],
    [
      'a transaction whose lost connection TypeORM already released',
      new QueryRunnerProviderAlreadyReleasedError(),
    ],
    [
      'a query on a query runner released after its connection was lost',
      new QueryRunnerAlreadyReleasedError(),
    ],
    [
      'a query on a client closed after a connection error',
      new Error('Client was closed and is not queryable'),
    ],
    ['a refused connection as the cause', new Error('query failed', { cause: socketError('ECONNREFUSED') })],
    [
      'a dual-stack connect (AggregateError)',
      new AggregateError([socketError('ECONNREFUSED'), socketError('ECONNREFUSED')]),
    ],
  ])('is true for %s', (_label, error) => {
    expect(isDatabaseUnreachable(error)).toBe(true);
  });

  it.each([
    ['a unique violation (23505)', pgError('23505', 'duplicate key value violates unique constraint')],
    ['a missing table (42P01)', pgError('42P01')],
    ['a query canceled by statement timeout (57014)', pgError('57014')],
    ['a syntax error inside QueryFailedError', new QueryFailedError('SELEC 1', [], pgError('42601'))],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a non-error', 'ECONNREFUSED'],
    ['null', null],
  ])('is false for %s', (_label, error) => {
    expect(isDatabaseUnreachable(error)).toBe(false);
  });

  it('stops at a cycle of causes', () => {
    const error: Error & { cause?: unknown } = new Error('loop');
    error.cause = error;
    expect(isDatabaseUnreachable(error)).toBe(false);
  });
});

describe(databaseOutageError.name, () => {
  it('makes an unreachable database a service_unavailable that says nothing of the connection', () => {
    const outage = databaseOutageError(socketError('ECONNREFUSED'));
    expect(outage?.code).toBe(ErrorCode.ServiceUnavailable);
    expect(outage?.message).not.toContain('127.0.0.1');
  });

  it('leaves any other error alone', () => {
    expect(databaseOutageError(pgError('23505'))).toBeUndefined();
  });
});
