import { testDatabaseServerUrl } from '@certlane/testing';
import { Client, Pool, PoolClient } from 'pg';
import { ListenedClient } from './listened-client';

/**
 * A checked-out pooled client whose session the server ends between its owner's queries (what
 * a Postgres restart or pg_terminate_backend does): with node-postgres' own client nothing
 * listens for the resulting `error` and the process dies; with ListenedClient the owner's next
 * query fails and releasing with that error drops the client, after which the pool serves again.
 */
describe(ListenedClient.name, () => {
  const url = testDatabaseServerUrl();
  let admin: Client;

  beforeAll(async () => {
    admin = new Client({ connectionString: url });
    await admin.connect();
  });
  afterAll(() => admin.end());

  /** Ends the client's session from the server side and waits for the socket to close. */
  async function terminate(client: PoolClient): Promise<void> {
    const ended = new Promise((resolve) => client.once('end', resolve));
    const pid = (client as unknown as { processID: number }).processID;
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await ended;
  }

  it('has a listener for error on a checked-out client, which node-postgres’ own client lacks', async () => {
    const plain = new Pool({ connectionString: url, max: 1 });
    const listened = new Pool({ connectionString: url, max: 1, Client: ListenedClient });
    try {
      const [a, b] = await Promise.all([plain.connect(), listened.connect()]);
      expect(a.listenerCount('error')).toBe(0);
      expect(b.listenerCount('error')).toBe(1);
      a.release();
      b.release();
    } finally {
      await Promise.all([plain.end(), listened.end()]);
    }
  });

  it('survives the server ending a checked-out session; the pool drops it and serves again', async () => {
    const pool = new Pool({ connectionString: url, max: 1, Client: ListenedClient });
    try {
      const client = await pool.connect();
      await terminate(client);
      const failure = await client.query('SELECT 1').then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failure).toBeInstanceOf(Error);
      client.release(failure);
      expect(pool.totalCount).toBe(0);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
