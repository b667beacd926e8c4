import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { PLATFORM_MIGRATIONS } from './platform-migrations';
import { quoteIdent } from './schema-name';

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface MigrationOptions {
  databaseUrl: string;
  /** TLS settings for the connection (see postgresConnection). */
  ssl?: { ca: string[]; rejectUnauthorized: boolean };
  /** Postgres schema the service owns. */
  schema: string;
  /** migrations/<service> directory: NNNN_description.sql files and an optional seeds/ folder. */
  directory: string;
  demoSeed: boolean;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

export interface MigrationResult {
  applied: string[];
  seeds: string[];
}

interface Migration {
  version: string;
  sql: string;
}

export function readMigrationFiles(directory: string): Migration[] {
  if (!existsSync(directory)) return [];
  const names = readdirSync(directory).filter((name) => name.endsWith('.sql'));
  for (const name of names) {
    if (!MIGRATION_FILE.test(name))
      throw new Error(`migration file ${name} is not named NNNN_description.sql`);
  }
  const versions = new Set<string>();
  return names.sort().map((name) => {
    const number = name.slice(0, 4);
    if (versions.has(number)) throw new Error(`two migrations in ${directory} share the number ${number}`);
    versions.add(number);
    return { version: name.replace(/\.sql$/, ''), sql: readFileSync(join(directory, name), 'utf8') };
  });
}

const checksum = (sql: string) => createHash('sha256').update(sql).digest('hex');

/**
 * Applies the platform tables and the service's pending migrations, each in its own
 * transaction, then the baseline seed (every start) and the demo seed (when asked). A session
 * advisory lock per schema serialises replicas that start together; applied versions are kept
 * in <schema>.schema_migrations with a checksum, and a migration edited after it ran is refused.
 */
export async function runMigrations(options: MigrationOptions): Promise<MigrationResult> {
  const log = options.log ?? (() => undefined);
  const schema = quoteIdent(options.schema);
  const migrations = [...PLATFORM_MIGRATIONS, ...readMigrationFiles(options.directory)];
  const client = new Client({
    connectionString: options.databaseUrl,
    ssl: options.ssl,
    application_name: `certlane-migrate-${options.schema}`,
  });
  await client.connect();
  const result: MigrationResult = { applied: [], seeds: [] };
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`certlane:migrate:${options.schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
      version text PRIMARY KEY,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: string; checksum: string }>(
      `SELECT version, checksum FROM ${schema}.schema_migrations`,
    );
    const applied = new Map(rows.map((row) => [row.version, row.checksum]));

    for (const migration of migrations) {
      const sum = checksum(migration.sql);
      const recorded = applied.get(migration.version);
      if (recorded !== undefined) {
        if (recorded !== sum) {
          throw new Error(
            `migration ${options.schema}/${migration.version} changed after it was applied; add a new migration instead`,
          );
        }
        continue;
      }
      await inTransaction(client, schema, async () => {
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${schema}.schema_migrations (version, checksum) VALUES ($1, $2)`, [
          migration.version,
          sum,
        ]);
      }).catch((error: Error) => {
        throw new Error(`migration ${options.schema}/${migration.version} failed: ${error.message}`);
      });
      result.applied.push(migration.version);
      log('migration applied', { schema: options.schema, version: migration.version });
    }

    const seeds = ['baseline', ...(options.demoSeed ? ['demo'] : [])];
    for (const seed of seeds) {
      const file = join(options.directory, 'seeds', `${seed}.sql`);
      if (!existsSync(file)) continue;
      const sql = readFileSync(file, 'utf8');
      await inTransaction(client, schema, () => client.query(sql)).catch((error: Error) => {
        throw new Error(`seed ${options.schema}/${seed} failed: ${error.message}`);
      });
      result.seeds.push(seed);
    }
    return result;
  } finally {
    await client
      .query('SELECT pg_advisory_unlock(hashtext($1))', [`certlane:migrate:${options.schema}`])
      .catch(() => undefined);
    await client.end();
  }
}

async function inTransaction(client: Client, schema: string, work: () => Promise<unknown>): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL search_path TO ${schema}, public`);
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
