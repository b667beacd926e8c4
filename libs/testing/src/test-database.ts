import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export function testDatabaseServerUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

/**
 * A fresh, empty database of its own for one test file, so tests never see each other's rows; on
 * the shared test server unless `serverUrl` names another (a private one, see private-servers.ts).
 */
export async function createTestDatabase(
  label = 'test',
  serverUrl = testDatabaseServerUrl(),
): Promise<TestDatabase> {
  const name = `certlane_${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

/** A connected SQL session on a test database, for tests whose own project may not import `pg`. */
export type SqlSession = Client;

export async function openSqlSession(url: string): Promise<SqlSession> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}
