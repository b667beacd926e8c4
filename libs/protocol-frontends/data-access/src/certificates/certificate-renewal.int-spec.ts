import { runMigrations } from '@certlane/platform';
import { createServiceSchemaDatabase, ServiceSchemaDatabase } from '@certlane/testing';
import { Client } from 'pg';
import { AccountStore } from '../accounts/account.store';
import { randomId } from '../sql/rows';
import { CertificateStore } from './certificate.store';

/**
 * What a renewal renews (ADR 0068): the account's newest unreplaced certificate for the same
 * identifier set, whatever the order of the identifiers; linked once.
 */
describe('ACME certificate renewal links', () => {
  let database: ServiceSchemaDatabase;
  let pg: Client;
  let accountId: string;
  let otherAccountId: string;

  beforeAll(async () => {
    database = await createServiceSchemaDatabase('acmerenew', 'protocol-frontends', runMigrations);
    pg = database.pg;
    const account = async (x: string, thumbprint: string) =>
      (
        await new AccountStore(pg).createOrFind({
          jwk: { kty: 'EC', crv: 'P-256', x, y: 'y' },
          thumbprint,
          contact: [],
          termsOfServiceAgreed: true,
        })
      ).account.id;
    accountId = await account('renewal', 'R'.repeat(43));
    otherAccountId = await account('other', 'O'.repeat(43));
  }, 60_000);

  afterAll(() => database?.drop());

  async function issued(account: string, identifiers: { type: string; value: string }[]) {
    const orderId = randomId();
    await pg.query(
      `INSERT INTO acme_orders (id, account_id, profile_id, status, identifiers, expires_at)
       VALUES ($1, $2, 'default', 'valid', $3, now() + interval '1 day')`,
      [orderId, account, JSON.stringify(identifiers)],
    );
    return new CertificateStore(pg).insert({
      orderId,
      accountId: account,
      issuerId: 'local',
      serialHex: randomId(8).replace(/[^0-9a-f]/g, '') || 'a1',
      pemChain: 'pem',
      notBefore: new Date(),
      notAfter: new Date(Date.now() + 86_400_000),
      renewalId: `${randomId()}.${randomId(4)}`,
      identifiers,
    });
  }

  it("finds the account's certificates of the same identifier set, in any order, newest first", async () => {
    const a = { type: 'dns', value: 'a.example' };
    const b = { type: 'dns', value: 'b.example' };
    const older = await issued(accountId, [a, b]);
    const newest = await issued(accountId, [b, a]);
    await issued(otherAccountId, [a, b]);
    await issued(accountId, [a]);
    const store = new CertificateStore(pg);
    const found = await store.unreplacedForIdentifiers(accountId, [b, { type: 'dns', value: 'A.example' }]);
    expect(found.map((row) => row.id)).toEqual([newest.id, older.id]);
    expect(
      await store.unreplacedForIdentifiers(accountId, [a, b, { type: 'ip', value: '127.0.0.1' }]),
    ).toEqual([]);
  });

  it('links a renewal once; a replaced certificate is no longer what the set renews', async () => {
    const c = { type: 'dns', value: 'c.example' };
    const first = await issued(accountId, [c]);
    const second = await issued(accountId, [c]);
    const store = new CertificateStore(pg);
    expect(await store.markReplaced(first.id, second.id)).toBe(true);
    expect(await store.markReplaced(first.id, second.id)).toBe(false);
    expect((await store.byId(first.id))?.replaced_by_id).toBe(second.id);
    expect((await store.unreplacedForIdentifiers(accountId, [c])).map((row) => row.id)).toEqual([second.id]);
    expect(await store.markReplaced(second.id, first.id)).toBe(true);
    expect(await store.unreplacedForIdentifiers(accountId, [c])).toEqual([]);
  });

  it("stores an order's certificate in one statement: once per order, linked to what it renews once", async () => {
    const d = { type: 'dns', value: 'd.example' };
    const predecessor = await issued(accountId, [d]);
    const orderId = randomId();
    await pg.query(
      `INSERT INTO acme_orders (id, account_id, profile_id, status, identifiers, expires_at)
       VALUES ($1, $2, 'default', 'processing', $3, now() + interval '1 day')`,
      [orderId, accountId, JSON.stringify([d])],
    );
    const other = await database.connect();
    {
      const conditions: string[] = [];
      const store = (client: Client) =>
        new CertificateStore(client).storeForOrder(
          {
            orderId,
            accountId,
            issuerId: 'local',
            serialHex: 'd1',
            pemChain: 'pem',
            notBefore: new Date(),
            notAfter: new Date(Date.now() + 86_400_000),
            renewalId: `${randomId()}.${randomId(4)}`,
            identifiers: [d],
            replaces: predecessor.id,
          },
          (statement, { stored, renewed }) => {
            conditions.push(`${stored} AND ${renewed}`);
            statement.add(
              `INSERT INTO acme_rate_events (key, at) SELECT ${statement.value(`renewed:${orderId}`)}::text, now()
                WHERE ${stored} AND ${renewed}`,
            );
          },
        );
      // Two replicas store the same order's certificate: one statement stores and links it.
      const results = await Promise.all([store(pg), store(other)]);
      const stored = results.filter((result) => result !== null);
      expect(stored).toEqual([{ id: expect.any(String), renewed: true }]);
      expect((await new CertificateStore(pg).byId(predecessor.id))?.replaced_by_id).toBe(stored[0]!.id);
      const { rows } = await pg.query(
        'SELECT count(*)::int AS n FROM acme_certificates WHERE order_id = $1',
        [orderId],
      );
      expect(rows[0].n).toBe(1);
      const { rows: parts } = await pg.query(
        'SELECT count(*)::int AS n FROM acme_rate_events WHERE key = $1',
        [`renewed:${orderId}`],
      );
      expect(parts[0].n).toBe(1);
      expect((await pg.query('SELECT status FROM acme_orders WHERE id = $1', [orderId])).rows[0].status).toBe(
        'valid',
      );
      expect(conditions).toHaveLength(2);
    }
  });
});
