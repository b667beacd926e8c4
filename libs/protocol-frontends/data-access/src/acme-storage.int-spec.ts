import { runMigrations } from '@certlane/platform';
import { challengeTypesFor } from '@certlane/protocol-frontends-domain';
import { createServiceSchemaDatabase, ServiceSchemaDatabase } from '@certlane/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AccountStore } from './accounts/account.store';
import { NonceStore } from './nonces/nonce.store';
import { rateEventInsert, rateSlotGate } from './limits/rate-limit.store';
import { validationAttemptInsert } from './operations/acme-operations.store';
import { OrderStore } from './orders/order.store';

const jwk = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
};
const THUMB = 'oKIywvGUpTVTyxMQ3bwIIeQUudfr_CkLMjCE19ECD-U';

/**
 * The ACME tables (migrations/protocol-frontends/0001) under the stores, on real Postgres, with
 * two connections standing for two replicas: one through pg, one through TypeORM (as the service).
 */
describe('ACME storage', () => {
  let database: ServiceSchemaDatabase;
  let pg: Client;
  let typeorm: DataSource;
  const day = 24 * 3600_000;

  beforeAll(async () => {
    database = await createServiceSchemaDatabase('acmestore', 'protocol-frontends', runMigrations);
    pg = database.pg;
    typeorm = new DataSource({
      type: 'postgres',
      url: database.database.url,
      extra: { options: '-c search_path=protocol_frontends' },
    });
    await typeorm.initialize();
  }, 60_000);

  afterAll(async () => {
    await typeorm?.destroy();
    await database?.drop();
  });

  it('keeps nonces and rate windows unlogged (no WAL flush on a nonce spend), and the rest logged', async () => {
    const { rows } = await pg.query(
      `SELECT relname, relpersistence FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'protocol_frontends' AND c.relkind = 'r'
          AND relname IN ('acme_nonces', 'acme_rate_events', 'acme_rate_buckets', 'est_rate_windows', 'scep_rate_windows', 'acme_accounts', 'acme_orders')
        ORDER BY relname`,
    );
    expect(Object.fromEntries(rows.map((row) => [row.relname, row.relpersistence]))).toEqual({
      acme_accounts: 'p',
      acme_nonces: 'u',
      acme_orders: 'p',
      acme_rate_buckets: 'u',
      acme_rate_events: 'u',
      est_rate_windows: 'u',
      scep_rate_windows: 'u',
    });
  });

  describe('nonces', () => {
    it('RFC 8555 6.5: a nonce from one replica is accepted once by the other, then refused', async () => {
      const nonce = await new NonceStore(pg).issue();
      const other = new NonceStore(typeorm);
      expect(await other.consume(nonce)).toBe(true);
      expect(await other.consume(nonce)).toBe(false);
      expect(await new NonceStore(pg).consume(nonce)).toBe(false);
    });

    it('two replicas racing for one nonce: exactly one wins', async () => {
      for (let i = 0; i < 20; i++) {
        const nonce = await new NonceStore(pg).issue();
        const wins = await Promise.all([
          new NonceStore(pg).consume(nonce),
          new NonceStore(typeorm).consume(nonce),
        ]);
        expect(wins.filter(Boolean)).toHaveLength(1);
      }
    });

    it('refuses an expired nonce and a nonce never issued; prune deletes expired ones', async () => {
      const short = new NonceStore(pg, 1);
      const nonce = await short.issue();
      await pg.query(`UPDATE acme_nonces SET expires_at = now() - interval '1 second' WHERE nonce = $1`, [
        nonce,
      ]);
      expect(await short.consume(nonce)).toBe(false);
      expect(await short.consume('AAAAAAAAAAAAAAAAAAAAAA')).toBe(false);
      const expired = await short.issue();
      await pg.query(`UPDATE acme_nonces SET expires_at = now() - interval '1 second' WHERE nonce = $1`, [
        expired,
      ]);
      expect(await short.prune()).toBeGreaterThanOrEqual(1);
      const { rows } = await pg.query('SELECT count(*)::int AS n FROM acme_nonces WHERE expires_at <= now()');
      expect(rows[0].n).toBe(0);
    });
  });

  describe('accounts', () => {
    it('RFC 8555 7.3.1: a second newAccount with the same key finds the first account', async () => {
      const first = await new AccountStore(pg).createOrFind({
        jwk,
        thumbprint: THUMB,
        contact: ['mailto:a@b.co'],
        termsOfServiceAgreed: true,
      });
      const second = await new AccountStore(typeorm).createOrFind({
        jwk,
        thumbprint: THUMB,
        contact: [],
        termsOfServiceAgreed: true,
      });
      expect(first.created).toBe(true);
      expect(second).toEqual({ account: first.account, created: false });
      expect(first.account.jwk).toEqual(jwk);
      expect(first.account.contact).toEqual(['mailto:a@b.co']);
    });

    it('updates contacts of a valid account, deactivates once, then refuses both', async () => {
      const store = new AccountStore(typeorm);
      const { account } = await store.createOrFind({
        jwk: { ...jwk, x: 'other' },
        thumbprint: 'A'.repeat(43),
        contact: [],
        termsOfServiceAgreed: true,
      });
      expect((await store.updateContact(account.id, ['mailto:x@y.zz']))?.contact).toEqual(['mailto:x@y.zz']);
      expect(await store.transition(account.id, { kind: 'deactivate' })).toEqual({
        ok: true,
        to: 'deactivated',
      });
      const again = await store.transition(account.id, { kind: 'deactivate' });
      expect(again?.ok).toBe(false);
      expect(await store.updateContact(account.id, [])).toBeNull();
      expect(await store.transition('nosuchaccount', { kind: 'deactivate' })).toBeNull();
    });

    it('consumes a nonce and reads the account in one statement: the nonce once, any account id', async () => {
      const store = new AccountStore(typeorm);
      const { account } = await store.createOrFind({
        jwk: { ...jwk, x: 'prefetched' },
        thumbprint: 'B'.repeat(43),
        contact: [],
        termsOfServiceAgreed: true,
      });
      const nonce = await new NonceStore(pg).issue();
      const first = await store.consumeNonceAndGet(nonce, account.id);
      expect(first.nonceOk).toBe(true);
      expect(first.account).toMatchObject({ id: account.id, status: 'valid', jwk: { x: 'prefetched' } });
      expect(await store.consumeNonceAndGet(nonce, account.id)).toMatchObject({ nonceOk: false });
      const unknown = await new AccountStore(pg).consumeNonceAndGet(
        await new NonceStore(pg).issue(),
        'nosuch',
      );
      expect(unknown).toEqual({ nonceOk: true, account: null, also: null });
    });

    it('reads the resource a request is about in the nonce statement, and null when there is none', async () => {
      const { account } = await new AccountStore(pg).createOrFind({
        jwk: { ...jwk, x: 'with-resource' },
        thumbprint: 'C'.repeat(43),
        contact: [],
        termsOfServiceAgreed: true,
      });
      const created = await new OrderStore(pg).create({
        accountId: account.id,
        profileId: 'default',
        identifiers: [{ type: 'dns', value: 'also.example.com' }],
        expiresAt: () => new Date(Date.now() + 3600_000),
        authorizationExpiresAt: new Date(Date.now() + 3600_000),
        reuseUntil: new Date(),
        challengeTypes: () => ['http-01', 'dns-01'],
      });
      for (const executor of [pg, typeorm]) {
        const store = new AccountStore(executor);
        const withOrder = await store.consumeNonceAndGet(
          await new NonceStore(pg).issue(),
          account.id,
          OrderStore.orderViewRead(created.order!.id),
        );
        expect(withOrder.account?.id).toBe(account.id);
        expect(withOrder.also).toEqual(await new OrderStore(executor).orderView(created.order!.id));
        expect(withOrder.also).toMatchObject({
          authorization_ids: created.authorizationIds,
          certificate_id: null,
        });
        const withAuthorization = await store.consumeNonceAndGet(
          await new NonceStore(pg).issue(),
          account.id,
          OrderStore.authorizationWithChallengesRead(created.authorizationIds[0]),
        );
        expect(withAuthorization.also?.challenges.map((c) => c.type)).toEqual(['dns-01', 'http-01']);
        expect(withAuthorization.also?.authorization.expires_at).toBeInstanceOf(Date);
        const missing = await store.consumeNonceAndGet(
          await new NonceStore(pg).issue(),
          'nosuch',
          OrderStore.orderViewRead('nosuch'),
        );
        expect(missing).toEqual({ nonceOk: true, account: null, also: null });
      }
    });
  });

  describe('orders, authorizations, challenges', () => {
    let accountId: string;
    const now = new Date();
    const create = (store: OrderStore, values: string[]) =>
      store
        .create({
          accountId,
          profileId: 'default',
          identifiers: values.map((value) => ({ type: 'dns' as const, value })),
          expiresAt: (reused) =>
            new Date(Math.min(now.getTime() + 7 * day, ...reused.map((d) => d.getTime()))),
          authorizationExpiresAt: new Date(now.getTime() + 7 * day),
          reuseUntil: new Date(now.getTime() + day),
          challengeTypes: (identifier) => challengeTypesFor(identifier, ['http-01', 'dns-01']),
        })
        .then((created) => ({ ...created, order: created.order! }));

    beforeAll(async () => {
      ({
        account: { id: accountId },
      } = await new AccountStore(pg).createOrFind({
        jwk: { ...jwk, x: 'orders' },
        thumbprint: 'B'.repeat(43),
        contact: [],
        termsOfServiceAgreed: true,
      }));
    });

    it('stores an order with a pending authorization per identifier and the offered challenges', async () => {
      const store = new OrderStore(pg);
      const { order, authorizationIds, reused } = await create(store, ['a.example.com', '*.example.com']);
      expect(order.status).toBe('pending');
      expect(reused).toBe(0);
      const authorizations = await store.authorizationsOf(order.id);
      expect(authorizations.map((a) => [a.identifier_value, a.wildcard, a.status])).toEqual([
        ['a.example.com', false, 'pending'],
        ['example.com', true, 'pending'],
      ]);
      expect(authorizationIds).toHaveLength(2);
      const wildcard = authorizations.find((a) => a.wildcard)!;
      expect((await store.challengesOf(wildcard.id)).map((c) => c.type)).toEqual(['dns-01']);
      const plain = authorizations.find((a) => !a.wildcard)!;
      const challenges = await store.challengesOf(plain.id);
      expect(challenges.map((c) => c.type)).toEqual(['dns-01', 'http-01']);
      expect(challenges.every((c) => /^[A-Za-z0-9_-]{43}$/.test(c.token))).toBe(true);
    });

    it('an order is one statement with its rate slot: past the limit nothing of it is written', async () => {
      const gated = (value: string) =>
        new OrderStore(pg).create({
          accountId,
          profileId: 'default',
          identifiers: [{ type: 'dns', value }],
          expiresAt: () => new Date(now.getTime() + day),
          authorizationExpiresAt: new Date(now.getTime() + day),
          reuseUntil: new Date(now.getTime() + day),
          challengeTypes: () => ['http-01'],
          gate: (statement) =>
            rateSlotGate(statement, `gate-test:${accountId}`, { limit: 1, windowMs: day }, new Date()),
        });
      const first = await gated('gate-1.example.com');
      expect(first.order).toMatchObject({ status: 'pending' });
      expect(first.gate).toBeNull();
      const second = await gated('gate-2.example.com');
      expect(second.order).toBeNull();
      expect(second.gate).toBeInstanceOf(Date);
      const { rows } = await pg.query(
        `SELECT (SELECT count(*)::int FROM acme_authorizations WHERE identifier_value = 'gate-2.example.com') AS authorizations,
                (SELECT count(*)::int FROM acme_orders WHERE identifiers @> '[{"value": "gate-2.example.com"}]') AS orders`,
      );
      expect(rows[0]).toEqual({ authorizations: 0, orders: 0 });
    });

    it('reuses a valid authorization of the same account and identifier', async () => {
      const store = new OrderStore(pg);
      const first = await create(store, ['reuse.example.com']);
      expect(await store.setAuthorizationStatus(first.authorizationIds[0], 'pending', 'valid')).toBe(true);
      const soon = new Date(now.getTime() + 2 * day);
      await pg.query('UPDATE acme_authorizations SET expires_at = $2 WHERE id = $1', [
        first.authorizationIds[0],
        soon,
      ]);
      const second = await create(store, ['reuse.example.com', 'fresh.example.com']);
      expect(second.reused).toBe(1);
      expect(second.authorizationIds).toContain(first.authorizationIds[0]);
      // The order cannot outlive an authorization it reuses.
      expect(second.order.expires_at).toEqual(soon);
    });

    it('a status change is a compare-and-set: of two replicas only one applies it', async () => {
      const { order } = await create(new OrderStore(pg), ['cas.example.com']);
      const results = await Promise.all([
        new OrderStore(pg).setOrderStatus(order.id, 'pending', 'ready'),
        new OrderStore(typeorm).setOrderStatus(order.id, 'pending', 'ready'),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await new OrderStore(pg).order(order.id))?.status).toBe('ready');
    });

    it('no challenge is validated twice: one replica claims it until its lease ends', async () => {
      const store = new OrderStore(pg);
      const { authorizationIds } = await create(store, ['claim.example.com']);
      const [challenge] = await store.challengesOf(authorizationIds[0]);
      expect(await store.claimForValidation(challenge.id, 60_000)).toBeNull();
      expect(await store.setChallengeStatus(challenge.id, 'pending', 'processing')).toBe(true);
      const claims = await Promise.all([
        new OrderStore(pg).claimForValidation(challenge.id, 60_000),
        new OrderStore(typeorm).claimForValidation(challenge.id, 60_000),
      ]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      await pg.query(`UPDATE acme_challenges SET claimed_until = now() - interval '1 second' WHERE id = $1`, [
        challenge.id,
      ]);
      expect(await store.claimForValidation(challenge.id, 60_000)).toMatchObject({ id: challenge.id });
      expect(await store.setChallengeStatus(challenge.id, 'processing', 'valid')).toBe(true);
      const [after] = await store.challengesOf(authorizationIds[0]);
      expect(after.status).toBe('valid');
      expect(after.validated_at).toBeInstanceOf(Date);
    });

    it('RFC 8555 8.2: a repeated response takes a waiting retry at once, a second after the failure, and never a running attempt', async () => {
      const store = new OrderStore(pg);
      const { authorizationIds } = await create(store, ['retry-now.example.com']);
      const [challenge] = await store.challengesOf(authorizationIds[0]);
      const claimed = await store.claimForValidation(challenge.id, 60_000, 'pending');
      expect(claimed).toMatchObject({ id: challenge.id, attempts: 1 });
      // While the first attempt runs, asking for a retry takes nothing.
      expect(await store.claimForValidation(challenge.id, 60_000, 'retry-now')).toBeNull();
      // It failed and waits 10 s for the next attempt; asked at once, the retry is not taken (the
      // spacing that rate-limits client-asked retries).
      expect(await store.retryLater(challenge.id, 10_000, { type: 'connection' })).toBe(true);
      expect(await store.claimForValidation(challenge.id, 60_000, 'retry-now')).toBeNull();
      expect(await store.claimForValidation(challenge.id, 60_000)).toBeNull(); // the sweep waits too
      await pg.query(
        `UPDATE acme_challenges SET awaiting_retry_since = now() - interval '2 seconds' WHERE id = $1`,
        [challenge.id],
      );
      const [early, racing] = await Promise.all([
        new OrderStore(pg).claimForValidation(challenge.id, 60_000, 'retry-now'),
        new OrderStore(typeorm).claimForValidation(challenge.id, 60_000, 'retry-now'),
      ]);
      expect([early, racing].filter(Boolean)).toEqual([expect.objectContaining({ attempts: 2 })]);
      // The attempt it started holds the challenge: neither another request nor the sweep takes it.
      expect(await store.claimForValidation(challenge.id, 60_000, 'retry-now')).toBeNull();
      expect(await store.claimForValidation(challenge.id, 60_000)).toBeNull();
      // A pending challenge is not started by a retry request.
      const [other] = await store.challengesOf(
        (await create(store, ['retry-pending.example.com'])).authorizationIds[0],
      );
      expect(await store.claimForValidation(other.id, 60_000, 'retry-now')).toBeNull();
    });

    it('a validation ends in one statement: its other writes happen only when the challenge moved', async () => {
      const store = new OrderStore(pg);
      const { authorizationIds } = await create(store, ['conclude.example.com']);
      const [challenge] = await store.challengesOf(authorizationIds[0]);
      await store.setChallengeStatus(challenge.id, 'pending', 'processing');
      const conclude = (executor: Client | DataSource, marker: string) =>
        new OrderStore(executor).concludeValidation({
          challenge: { id: challenge.id, to: 'invalid', error: { type: 'urn:test', detail: marker } },
          authorization: { id: authorizationIds[0], from: 'pending', to: 'invalid' },
          alongside: (statement, condition) => {
            statement.with(
              'failure',
              rateEventInsert(statement, `conclude-test:${marker}`, new Date(), condition),
            );
            statement.with(
              'attempt',
              validationAttemptInsert(
                statement,
                {
                  challengeId: challenge.id,
                  authorizationId: authorizationIds[0],
                  accountId,
                  type: challenge.type,
                  identifier: { type: 'dns', value: 'conclude.example.com' },
                  result: 'invalid',
                  error: { type: 'urn:test', detail: marker },
                  remoteAddress: marker,
                },
                condition,
              ),
            );
          },
        });
      // Two replicas conclude the same validation: one statement takes, the other writes nothing.
      const took = await Promise.all([conclude(pg, 'first'), conclude(typeorm, 'second')]);
      expect(took.filter(Boolean)).toEqual([{ validatedAt: null }]);
      const winner = took[0] ? 'first' : 'second';
      const { rows: attempts } = await pg.query(
        'SELECT remote_address, error FROM acme_validation_attempts WHERE challenge_id = $1',
        [challenge.id],
      );
      expect(attempts).toEqual([{ remote_address: winner, error: { type: 'urn:test', detail: winner } }]);
      const { rows: events } = await pg.query(
        "SELECT key FROM acme_rate_events WHERE key LIKE 'conclude-test:%'",
      );
      expect(events).toEqual([{ key: `conclude-test:${winner}` }]);
      expect(
        (await store.challengesOf(authorizationIds[0])).find((c) => c.id === challenge.id),
      ).toMatchObject({
        status: 'invalid',
        error: { detail: winner },
      });
      expect(
        (
          await store.authorizationsOf(
            (
              await pg.query('SELECT order_id FROM acme_order_authorizations WHERE authorization_id = $1', [
                authorizationIds[0],
              ])
            ).rows[0].order_id,
          )
        )[0].status,
      ).toBe('invalid');
    });

    it('the expiry sweep expires pending authorizations and orders once, whichever replica runs it', async () => {
      const store = new OrderStore(pg);
      const { order, authorizationIds } = await create(store, ['expire.example.com']);
      await pg.query(`UPDATE acme_orders SET expires_at = now() - interval '1 minute' WHERE id = $1`, [
        order.id,
      ]);
      await pg.query(
        `UPDATE acme_authorizations SET expires_at = now() - interval '1 minute' WHERE id = $1`,
        [authorizationIds[0]],
      );
      const sweeps = await Promise.all([
        store.expire(new Date()),
        new OrderStore(typeorm).expire(new Date()),
      ]);
      expect(sweeps.reduce((n, s) => n + s.orders, 0)).toBe(1);
      expect(sweeps.reduce((n, s) => n + s.authorizations, 0)).toBe(1);
      expect((await store.order(order.id))?.status).toBe('invalid');
      expect((await store.authorizationsOf(order.id))[0].status).toBe('expired');
    });

    it('the schema refuses a status outside the state machines', async () => {
      const { order } = await create(new OrderStore(pg), ['check.example.com']);
      await expect(
        pg.query(`UPDATE acme_orders SET status = 'done' WHERE id = $1`, [order.id]),
      ).rejects.toThrow(/check constraint/);
    });
  });
});
