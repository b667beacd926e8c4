import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';

/** Socket-level failures to reach the server (Node's error codes). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs that say the server cannot serve this connection right now: 57P01 admin_shutdown,
 * 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or shutting down), 53300
 * too_many_connections. Class 08 (connection exception) is matched by prefix.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres's own messages for a lost connection or a pool that could not get one in time. */
const LOST_CONNECTION =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;

/** How deep wrapped errors (TypeORM's driverError, `cause`, AggregateError) are searched. */
const MAX_DEPTH = 4;

/**
 * Whether an error means the database could not be reached (down, restarting, refusing
 * connections, the connection lost mid-query), as opposed to a query the database refused. It
 * looks through TypeORM's QueryFailedError (`driverError`), `cause` and AggregateError (Node's
 * dual-stack connect).
 */
export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH || typeof error !== 'object' || error === null) return false;
  // TypeORM released the transaction's connection because it was lost under it (the next query
  // of that transaction fails this way rather than with the driver's error).
  if (
    error instanceof QueryRunnerProviderAlreadyReleasedError ||
    error instanceof QueryRunnerAlreadyReleasedError
  )
    return true;
  const { code, message, driverError, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
      return true;
  }
  if (typeof message === 'string' && LOST_CONNECTION.test(message)) return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnreachable(inner, depth + 1))) return true;
  return isDatabaseUnreachable(driverError, depth + 1) || isDatabaseUnreachable(cause, depth + 1);
}

/**
 * The CertlaneError an unreachable database becomes wherever an unexpected error is turned into
 * an answer (bus handlers and HTTP routes): 503 `service_unavailable`, answered with Retry-After.
 * Undefined for any other error.
 */
export function databaseOutageError(error: unknown): CertlaneError | undefined {
  return isDatabaseUnreachable(error)
    ? new CertlaneError(ErrorCode.ServiceUnavailable, 'the database is unavailable; try again later')
    : undefined;
}
