import { runMigrations } from '@certlane/platform';
import { createServiceSchemaDatabase, ServiceSchemaDatabase } from '@certlane/testing';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AcmePurged, AcmeRetentionStore } from './acme-retention.store';

const DAY = 24 * 3600_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);
const id = () => randomBytes(12).toString('base64url');

/**
 * The retention purge (ADR 0073) on real Postgres: what ended before the cutoff goes, what a kept
 * record still needs stays, and two replicas purging at once split the work.
 */
describe('ACME retention purge', () => {
  let database: ServiceSchemaDatabase;
  let pg: Client;
  let account: string;
  const cutoff = () => ago(90);

  beforeAll(async () => {
    database = await createServiceSchemaDatabase('acmeretain', 'protocol-frontends', runMigrations);
    pg = database.pg;
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
  });

  beforeEach(async () => {
    await pg.query(
      `TRUNCATE acme_validation_attempts, acme_certificates, acme_order_authorizations, acme_challenges,
                acme_authorizations, acme_orders, acme_accounts CASCADE`,
    );
    account = id();
    await pg.query(`INSERT INTO acme_accounts (id, jwk, jwk_thumbprint) VALUES ($1, '{}'::jsonb, $2)`, [
      account,
      randomBytes(32).toString('base64url').slice(0, 43),
    ]);
  });

  /** An authorization with one http-01 challenge, expiring at `expires`. */
  async function authorization(expires: Date, status = 'valid'): Promise<string> {
    const authorizationId = id();
    await pg.query(
      `INSERT INTO acme_authorizations (id, account_id, identifier_type, identifier_value, status, expires_at)
       VALUES ($1, $2, 'dns', 'www.example.com', $3, $4)`,
      [authorizationId, account, status, expires],
    );
    await pg.query(
      `INSERT INTO acme_challenges (id, authorization_id, type, token) VALUES ($1, $2, 'http-01', $3)`,
      [id(), authorizationId, randomBytes(32).toString('base64url')],
    );
    return authorizationId;
  }

  /** An order created `createdDaysAgo` days ago, naming `authorizations` (a new one if none). */
  async function order(
    createdDaysAgo: number,
    status: string,
    authorizations?: string[],
  ): Promise<{ order: string; authorizations: string[] }> {
    const orderId = id();
    const created = ago(createdDaysAgo);
    const named = authorizations ?? [await authorization(new Date(created.getTime() + 37 * DAY))];
    await pg.query(
      `INSERT INTO acme_orders (id, account_id, profile_id, status, identifiers, expires_at, created_at)
       VALUES ($1, $2, 'default', $3, '[{"type":"dns","value":"www.example.com"}]'::jsonb, $4, $4)`,
      [orderId, account, status, created],
    );
    for (const authorizationId of named)
      await pg.query(`INSERT INTO acme_order_authorizations (order_id, authorization_id) VALUES ($1, $2)`, [
        orderId,
        authorizationId,
      ]);
    return { order: orderId, authorizations: named };
  }

  /** A valid order created `createdDaysAgo` days ago with a certificate expiring at `notAfter`. */
  async function certificate(createdDaysAgo: number, notAfter: Date, replacedBy?: string) {
    const issued = await order(createdDaysAgo, 'valid');
    const certificateId = id();
    await pg.query(
      `INSERT INTO acme_certificates (id, order_id, account_id, issuer_id, serial_hex, pem_chain, not_before, not_after, renewal_id, replaced_by_id)
       VALUES ($1, $2, $3, 'local-ca', $4, 'pem', $5, $6, $7, $8)`,
      [
        certificateId,
        issued.order,
        account,
        randomBytes(16).toString('hex'),
        ago(createdDaysAgo),
        notAfter,
        id(),
        replacedBy ?? null,
      ],
    );
    return { ...issued, certificate: certificateId };
  }

  async function attempt(daysAgo: number): Promise<void> {
    await pg.query(
      `INSERT INTO acme_validation_attempts (challenge_id, authorization_id, account_id, type, identifier_type, identifier_value, result, attempted_at)
       VALUES ('c', 'a', $1, 'http-01', 'dns', 'www.example.com', 'valid', $2)`,
      [account, ago(daysAgo)],
    );
  }

  async function exists(table: string, rowId: string): Promise<boolean> {
    const { rowCount } = await pg.query(`SELECT 1 FROM ${table} WHERE id = $1`, [rowId]);
    return rowCount === 1;
  }

  it('purges an order that ended without a certificate before the cutoff, with its authorization and challenges', async () => {
    // Created 130 days ago: its authorization expired 93 days ago (an order's 7 days, then 30 valid).
    const old = await order(130, 'invalid');
    const recent = await order(2, 'invalid');
    const purged = await new AcmeRetentionStore(pg).purge(cutoff());
    expect(purged).toEqual({
      orders: 1,
      certificates: 0,
      authorizations: 1,
      attempts: 0,
      filledABatch: false,
    });
    expect(await exists('acme_orders', old.order)).toBe(false);
    expect(await exists('acme_authorizations', old.authorizations[0])).toBe(false);
    const { rows } = await pg.query(
      `SELECT count(*)::int AS n FROM acme_challenges WHERE authorization_id = $1`,
      [old.authorizations[0]],
    );
    expect(rows[0].n).toBe(0);
    expect(await exists('acme_orders', recent.order)).toBe(true);
    expect(await exists('acme_authorizations', recent.authorizations[0])).toBe(true);
  });

  it('keeps orders still open or waiting, however old', async () => {
    const processing = await order(200, 'processing');
    const pending = await order(200, 'pending');
    await new AcmeRetentionStore(pg).purge(cutoff());
    expect(await exists('acme_orders', processing.order)).toBe(true);
    expect(await exists('acme_orders', pending.order)).toBe(true);
    expect(await exists('acme_authorizations', processing.authorizations[0])).toBe(true);
  });

  it('purges a certificate that expired before the cutoff with its order, and keeps one still valid', async () => {
    const expired = await certificate(200, ago(95));
    const living = await certificate(200, ago(-165));
    const purged = await new AcmeRetentionStore(pg).purge(cutoff());
    expect(purged).toMatchObject({ orders: 0, certificates: 1, authorizations: 1 });
    expect(await exists('acme_certificates', expired.certificate)).toBe(false);
    expect(await exists('acme_orders', expired.order)).toBe(false);
    expect(await exists('acme_authorizations', expired.authorizations[0])).toBe(false);
    // The certificate still valid keeps its order and the (long expired) authorization it names.
    expect(await exists('acme_certificates', living.certificate)).toBe(true);
    expect(await exists('acme_orders', living.order)).toBe(true);
    expect(await exists('acme_authorizations', living.authorizations[0])).toBe(true);
  });

  it('keeps an authorization while any kept order names it', async () => {
    const shared = await authorization(ago(91));
    const old = await order(130, 'invalid', [shared]);
    const kept = await order(100, 'processing', [shared]);
    await new AcmeRetentionStore(pg).purge(cutoff());
    expect(await exists('acme_orders', old.order)).toBe(false);
    expect(await exists('acme_orders', kept.order)).toBe(true);
    expect(await exists('acme_authorizations', shared)).toBe(true);
  });

  it('keeps an authorization that has not been expired for the whole retention', async () => {
    const recentlyExpired = await authorization(ago(30));
    const old = await order(130, 'invalid', [recentlyExpired]);
    await new AcmeRetentionStore(pg).purge(cutoff());
    expect(await exists('acme_orders', old.order)).toBe(false);
    expect(await exists('acme_authorizations', recentlyExpired)).toBe(true);
  });

  it('keeps a replacement certificate while the certificate it replaced is kept, then purges both', async () => {
    const replacement = await certificate(150, ago(100));
    const replaced = await certificate(200, ago(-10), replacement.certificate);
    const store = new AcmeRetentionStore(pg);
    expect((await store.purge(cutoff())).certificates).toBe(0);
    expect(await exists('acme_certificates', replacement.certificate)).toBe(true);
    await pg.query(`UPDATE acme_certificates SET not_after = $2 WHERE id = $1`, [
      replaced.certificate,
      ago(120),
    ]);
    expect((await store.purge(cutoff())).certificates).toBe(1);
    expect(await exists('acme_certificates', replaced.certificate)).toBe(false);
    expect(await exists('acme_certificates', replacement.certificate)).toBe(true);
    expect((await store.purge(cutoff())).certificates).toBe(1);
    expect(await exists('acme_certificates', replacement.certificate)).toBe(false);
  });

  it('purges validation attempts made before the cutoff', async () => {
    await attempt(120);
    await attempt(91);
    await attempt(10);
    expect((await new AcmeRetentionStore(pg).purge(cutoff())).attempts).toBe(2);
    const { rows } = await pg.query(`SELECT count(*)::int AS n FROM acme_validation_attempts`);
    expect(rows[0].n).toBe(1);
  });

  it('works off a backlog in batches, saying when a batch came back full', async () => {
    for (let i = 0; i < 5; i++) await order(100 + i, 'invalid');
    const store = new AcmeRetentionStore(pg);
    expect(await store.purge(cutoff(), 2)).toMatchObject({ orders: 2, filledABatch: true });
    expect(await store.purge(cutoff(), 2)).toMatchObject({ orders: 2, filledABatch: true });
    expect(await store.purge(cutoff(), 2)).toMatchObject({ orders: 1, filledABatch: false });
    expect(await store.purge(cutoff(), 2)).toMatchObject({
      orders: 0,
      authorizations: 0,
      filledABatch: false,
    });
  });

  it('two replicas purging at once remove each record once, without errors', async () => {
    for (let i = 0; i < 40; i++) await order(130 + i, 'invalid');
    for (let i = 0; i < 20; i++) await certificate(150 + i, ago(95 + i));
    const typeorm = new DataSource({
      type: 'postgres',
      url: database.database.url,
      extra: { options: '-c search_path=protocol_frontends' },
    });
    await typeorm.initialize();
    try {
      const passes = await Promise.all(
        [pg, typeorm, pg, typeorm].map((executor) => new AcmeRetentionStore(executor).purge(cutoff(), 10)),
      );
      const store = new AcmeRetentionStore(pg);
      const removed = (pass: AcmePurged) => pass.orders + pass.certificates;
      let total = passes.reduce((sum, pass) => sum + removed(pass), 0);
      let pass: AcmePurged;
      do {
        pass = await store.purge(cutoff(), 10);
        total += removed(pass);
      } while (pass.filledABatch);
      expect(total).toBe(60);
      const { rows } = await pg.query(
        `SELECT (SELECT count(*) FROM acme_orders)::int AS orders, (SELECT count(*) FROM acme_authorizations)::int AS authorizations`,
      );
      expect(rows[0]).toEqual({ orders: 0, authorizations: 0 });
    } finally {
      await typeorm.destroy();
    }
  });
});
