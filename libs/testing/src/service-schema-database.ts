import { Client } from 'pg';
import { serviceMigrationsDir } from './migrations-before';
import { createTestDatabase, TestDatabase } from './test-database';

/**
 * A test database with one service's migrations run in its schema (by the platform's
 * `runMigrations`, passed in: the platform's own tests use this library), and a pg client whose
 * `search_path` is that schema, as the service's own connections have it.
 */
export interface ServiceSchemaDatabase {
  database: TestDatabase;
  pg: Client;
  /** Another such client (a second replica, say); `drop` ends it too. */
  connect(): Promise<Client>;
  /** Ends every client and drops the database. */
  drop(): Promise<void>;
}

export async function createServiceSchemaDatabase(
  label: string,
  service: string,
  runMigrations: (options: {
    databaseUrl: string;
    schema: string;
    directory: string;
    demoSeed: boolean;
  }) => Promise<unknown>,
  schema = service.replace(/-/g, '_'),
): Promise<ServiceSchemaDatabase> {
  const database = await createTestDatabase(label);
  await runMigrations({
    databaseUrl: database.url,
    schema,
    directory: serviceMigrationsDir(service),
    demoSeed: false,
  });
  const clients: Client[] = [];
  const connect = async () => {
    const client = new Client({ connectionString: database.url, options: `-c search_path=${schema}` });
    await client.connect();
    clients.push(client);
    return client;
  };
  return {
    database,
    pg: await connect(),
    connect,
    async drop() {
      await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
      await database.drop();
    },
  };
}
