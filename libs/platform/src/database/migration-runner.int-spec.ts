import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '@certlane/testing';
import { Client } from 'pg';
import { MigrationOptions, runMigrations } from './migration-runner';
import { locateMigrationsDir } from './migrations-dir';
import { PLATFORM_MIGRATIONS } from './platform-migrations';
import { quoteIdent, schemaFor } from './schema-name';

/**
 * The migration runner against real Postgres: idempotent re-runs, concurrent replicas, refused
 * edits and misnamed files, all-or-nothing migrations, and seeds; plus a check that every
 * migration the repository ships can safely run twice.
 */

const FIXTURES = join(__dirname, '__fixtures__');
const OK_VERSIONS = ['platform-0001_outbox_inbox', '0001_create_things', '0002_add_column'];

/** The repository's own migrations: migrations/<service>/NNNN_*.sql and seeds/*.sql. */
const REPO_MIGRATIONS = locateMigrationsDir(undefined, __dirname);
const repoServices = readdirSync(REPO_MIGRATIONS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const repoFiles = repoServices.flatMap((service) => {
  const dir = join(REPO_MIGRATIONS, service);
  const seeds = join(dir, 'seeds');
  return [
    ...readdirSync(dir)
      .filter((name) => name.endsWith('.sql'))
      .sort()
      .map((name) => ({ service, file: `${service}/${name}`, path: join(dir, name) })),
    ...(existsSync(seeds) ? readdirSync(seeds) : [])
      .filter((name) => name.endsWith('.sql'))
      .sort()
      .map((name) => ({ service, file: `${service}/seeds/${name}`, path: join(seeds, name) })),
  ];
});

describe(runMigrations.name, () => {
  let database: TestDatabase;
  let client: Client;
  let schemaCounter = 0;
  const tempDirs: string[] = [];

  /** A schema name no other test of this file uses. */
  const freshSchema = (label: string) => `${label}_${++schemaCounter}`;

  const options = (schema: string, directory: string, demoSeed = false): MigrationOptions => ({
    databaseUrl: database.url,
    schema,
    directory,
    demoSeed,
  });

  const fixture = (name: string) => join(FIXTURES, name);

  /** A writable copy of a fixture directory. */
  const copyOf = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `certlane-migrations-${name}-`));
    tempDirs.push(dir);
    cpSync(fixture(name), dir, { recursive: true });
    return dir;
  };

  const recorded = async (schema: string) =>
    (
      await client.query<{ version: string; checksum: string; applied_at: Date }>(
        `SELECT version, checksum, applied_at FROM ${quoteIdent(schema)}.schema_migrations ORDER BY version`,
      )
    ).rows;

  const things = async (schema: string) =>
    (await client.query(`SELECT * FROM ${quoteIdent(schema)}.things ORDER BY id`)).rows;

  const tableExists = async (schema: string, table: string) =>
    (
      await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [
        `${quoteIdent(schema)}.${table}`,
      ])
    ).rows[0].t !== null;

  const schemaExists = async (schema: string) =>
    (await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount === 1;

  beforeAll(async () => {
    database = await createTestDatabase('migrations');
    client = new Client({ connectionString: database.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await database?.drop();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('applies the platform tables and the migrations in order, then the baseline seed', async () => {
    const schema = freshSchema('fresh');

    const result = await runMigrations(options(schema, fixture('ok')));

    expect(result).toEqual({ applied: OK_VERSIONS, seeds: ['baseline'] });
    expect((await recorded(schema)).map((row) => row.version)).toEqual([...OK_VERSIONS].sort());
    expect(await tableExists(schema, 'outbox')).toBe(true);
    expect(await tableExists(schema, 'inbox')).toBe(true);
    expect(await things(schema)).toEqual([{ id: 'baseline-1', name: 'Baseline thing', colour: 'grey' }]);
  });

  it('changes nothing when applied a second time', async () => {
    const schema = freshSchema('twice');
    await runMigrations(options(schema, fixture('ok')));
    const migrationsBefore = await recorded(schema);
    await client.query(
      `INSERT INTO ${quoteIdent(schema)}.things (id, name, colour) VALUES ('user-1', 'Mine', 'red')`,
    );
    const dataBefore = await things(schema);

    const second = await runMigrations(options(schema, fixture('ok')));

    expect(second.applied).toEqual([]);
    expect(await recorded(schema)).toEqual(migrationsBefore);
    expect(await things(schema)).toEqual(dataBefore);
  });

  it('records each version once when four runners start on a fresh schema at the same moment', async () => {
    const schema = freshSchema('race');

    const results = await Promise.all(
      Array.from({ length: 4 }, () => runMigrations(options(schema, fixture('ok')))),
    );

    expect(results.flatMap((result) => result.applied).sort()).toEqual([...OK_VERSIONS].sort());
    expect(results.every((result) => result.seeds.includes('baseline'))).toBe(true);
    expect((await recorded(schema)).map((row) => row.version)).toEqual([...OK_VERSIONS].sort());
    expect(await things(schema)).toHaveLength(1);
  });

  it('refuses a migration edited after it was applied, naming it', async () => {
    const schema = freshSchema('edited');
    const dir = copyOf('ok');
    await runMigrations(options(schema, dir));
    const before = await recorded(schema);
    const file = join(dir, '0002_add_column.sql');
    writeFileSync(
      file,
      `${readFileSync(file, 'utf8')}\nALTER TABLE things ADD COLUMN IF NOT EXISTS size integer;\n`,
    );

    await expect(runMigrations(options(schema, dir))).rejects.toThrow(
      `migration ${schema}/0002_add_column changed after it was applied`,
    );
    expect(await recorded(schema)).toEqual(before);
    const columns = await client.query(
      `SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'things' AND column_name = 'size'`,
      [schema],
    );
    expect(columns.rowCount).toBe(0);
  });

  it('leaves no trace of a failing migration and names it in the error', async () => {
    const schema = freshSchema('broken');

    await expect(runMigrations(options(schema, fixture('broken')))).rejects.toThrow(
      new RegExp(`migration ${schema}/0002_half_done failed: .*table_that_does_not_exist`),
    );

    expect((await recorded(schema)).map((row) => row.version)).toEqual([
      '0001_create_things',
      'platform-0001_outbox_inbox',
    ]);
    expect(await tableExists(schema, 'things')).toBe(true);
    expect(await tableExists(schema, 'half_done')).toBe(false);
    expect(await tableExists(schema, 'never_reached')).toBe(false);
  });

  it('runs the baseline seed on every start and the demo seed only when asked', async () => {
    const schema = freshSchema('seeds');
    const ids = async () => (await things(schema)).map((row) => row.id);

    const first = await runMigrations(options(schema, fixture('ok'), false));
    expect(first.seeds).toEqual(['baseline']);
    expect(await ids()).toEqual(['baseline-1']);

    await client.query(`DELETE FROM ${quoteIdent(schema)}.things`);
    const second = await runMigrations(options(schema, fixture('ok'), false));
    expect(second.seeds).toEqual(['baseline']);
    expect(await ids()).toEqual(['baseline-1']);

    const withDemo = await runMigrations(options(schema, fixture('ok'), true));
    expect(withDemo).toEqual({ applied: [], seeds: ['baseline', 'demo'] });
    expect(await ids()).toEqual(['baseline-1', 'demo-1']);

    const demoAgain = await runMigrations(options(schema, fixture('ok'), true));
    expect(demoAgain.seeds).toEqual(['baseline', 'demo']);
    expect(await ids()).toEqual(['baseline-1', 'demo-1']);
  });

  it('refuses a misnamed migration file before touching the database', async () => {
    const schema = freshSchema('misnamed');

    await expect(runMigrations(options(schema, fixture('bad-name')))).rejects.toThrow(
      'migration file 002_add_column.sql is not named NNNN_description.sql',
    );
    expect(await schemaExists(schema)).toBe(false);
  });

  it('refuses two migrations that share a number', async () => {
    const schema = freshSchema('duplicate');

    await expect(runMigrations(options(schema, fixture('duplicate-number')))).rejects.toThrow(
      'share the number 0001',
    );
    expect(await schemaExists(schema)).toBe(false);
  });

  describe('the repository migrations', () => {
    const applied = new Map<string, Promise<string>>();
    /** The service's schema with every migration and both seeds applied once by the runner. */
    const migratedSchema = (service: string) => {
      let schema = applied.get(service);
      if (!schema) {
        const name = freshSchema(`repo_${schemaFor(service)}`);
        schema = runMigrations(options(name, join(REPO_MIGRATIONS, service), true)).then(() => name);
        applied.set(service, schema);
      }
      return schema;
    };

    const runAgain = async (schema: string, sql: string) => {
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}, public`);
        await client.query(sql);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    };

    it('finds the migrations of at least one service', () => {
      expect(repoFiles.some((entry) => /\/\d{4}_[a-z0-9_]+\.sql$/.test(entry.file))).toBe(true);
    });

    it.each(repoFiles)('can run $file a second time without error', async ({ service, path }) => {
      const schema = await migratedSchema(service);

      await expect(runAgain(schema, readFileSync(path, 'utf8'))).resolves.toBeUndefined();
    });

    it.each(PLATFORM_MIGRATIONS.map((migration) => ({ ...migration })))(
      'can run the platform migration $version a second time without error',
      async ({ sql }) => {
        const schema = await migratedSchema(repoServices[0]);

        await expect(runAgain(schema, sql)).resolves.toBeUndefined();
      },
    );
  });
});
