import { runMigrations } from '@certlane/platform';
import { createServiceSchemaDatabase, ServiceSchemaDatabase } from '@certlane/testing';
import * as x509 from '@peculiar/x509';
import { randomBytes, randomUUID, webcrypto } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ScepTransactionStore } from '../scep/scep-transaction.store';
import { ScepPurged, ScepRetentionStore } from './scep-retention.store';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const DAY = 24 * 3600_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/**
 * The SCEP retention purge (ADR 0074) on real Postgres: transactions that have not moved since the
 * cutoff go, certificates leave GetCert once expired that long, older rows get their notAfter
 * from their PEM, and two replicas purging at once split the work.
 */
describe('SCEP retention purge', () => {
  let database: ServiceSchemaDatabase;
  let pg: Client;
  let profile: string;
  let keys: webcrypto.CryptoKeyPair;
  const cutoff = () => ago(90);

  beforeAll(async () => {
    database = await createServiceSchemaDatabase('scepretain', 'protocol-frontends', runMigrations);
    pg = database.pg;
    keys = (await webcrypto.subtle.generateKey(EC, false, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
  });

  beforeEach(async () => {
    await pg.query('TRUNCATE scep_issued_certificates, scep_transactions, scep_profiles CASCADE');
    profile = randomUUID();
    await pg.query(
      `INSERT INTO scep_profiles (id, path_id, ra_certificate_pem, ra_key_sealed) VALUES ($1, $2, 'pem', 'v1.sealed')`,
      [profile, `p${randomBytes(4).toString('hex')}`],
    );
  });

  /** A certificate valid until `notAfter`, with what GetCert names it by. */
  async function certificate(notAfter: Date) {
    const serial = randomBytes(8);
    serial[0] &= 0x7f;
    const issued = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial.toString('hex'),
      name: 'CN=scep retention',
      notBefore: new Date(notAfter.getTime() - 365 * DAY),
      notAfter,
      signingAlgorithm: EC,
      keys,
    });
    return {
      pem: issued.toString('pem'),
      issuer: Buffer.from(issued.issuerName.toArrayBuffer()),
      serial: Buffer.concat([Buffer.from([0x02, serial.length]), serial]),
    };
  }

  /** A transaction issued at once with a certificate valid until `notAfter`, last moved `movedDaysAgo`. */
  async function issued(notAfter: Date, movedDaysAgo: number) {
    const transactionId = randomBytes(8).toString('hex');
    const made = await certificate(notAfter);
    await new ScepTransactionStore(pg).recordIssued({
      profile_id: profile,
      transaction_id: transactionId,
      message_type: 'pkcsreq',
      csr_pem: 'csr',
      principal: 'challenge',
      certificate_pem: made.pem,
      certificate_issuer: made.issuer,
      certificate_serial: made.serial,
      certificate_not_after: notAfter,
    });
    await moved(transactionId, movedDaysAgo);
    return { transactionId, notAfter, ...made };
  }

  async function moved(transactionId: string, daysAgo: number): Promise<void> {
    await pg.query(
      `UPDATE scep_transactions SET updated_at = $3 WHERE profile_id = $1 AND transaction_id = $2`,
      [profile, transactionId, ago(daysAgo)],
    );
  }

  async function transactionExists(transactionId: string): Promise<boolean> {
    return (await new ScepTransactionStore(pg).get(profile, transactionId)) !== null;
  }

  const getCert = (made: { issuer: Buffer; serial: Buffer }) =>
    new ScepTransactionStore(pg).issuedCertificate(profile, made.issuer, made.serial);

  it('purges transactions of every status that have not moved since the cutoff, and keeps recent ones', async () => {
    const oldIssued = await issued(ago(-200), 120);
    const recentIssued = await issued(ago(-200), 10);
    const store = new ScepTransactionStore(pg);
    for (const [transactionId, daysAgo] of [
      ['pending-old', 100],
      ['pending-new', 3],
      ['rejected-old', 95],
    ] as const) {
      await store.createPending({
        profile_id: profile,
        transaction_id: transactionId,
        message_type: 'pkcsreq',
        csr_pem: 'csr',
        principal: 'challenge',
        approval_id: randomUUID(),
      });
      if (transactionId.startsWith('rejected'))
        await store.finish(profile, transactionId, { status: 'rejected', reject_reason: 'no' });
      await moved(transactionId, daysAgo);
    }
    const purged = await new ScepRetentionStore(pg).purge(cutoff());
    expect(purged).toEqual({ transactions: 3, certificates: 0, notAfterRead: 0, filledABatch: false });
    expect(await transactionExists(oldIssued.transactionId)).toBe(false);
    expect(await transactionExists('pending-old')).toBe(false);
    expect(await transactionExists('rejected-old')).toBe(false);
    expect(await transactionExists(recentIssued.transactionId)).toBe(true);
    expect(await transactionExists('pending-new')).toBe(true);
    // The certificate of a purged transaction stays with GetCert while it is valid.
    expect(await getCert(oldIssued)).toBe(oldIssued.pem);
  });

  it('forgets for GetCert a certificate that expired before the cutoff, and keeps one that expired since', async () => {
    const long = await issued(ago(95), 1);
    const lately = await issued(ago(30), 1);
    const purged = await new ScepRetentionStore(pg).purge(cutoff());
    expect(purged).toMatchObject({ transactions: 0, certificates: 1 });
    expect(await getCert(long)).toBeNull();
    expect(await getCert(lately)).toBe(lately.pem);
  });

  it('keeps the notAfter of a certificate a decided approval issued', async () => {
    const store = new ScepTransactionStore(pg);
    await store.createPending({
      profile_id: profile,
      transaction_id: 'approved',
      message_type: 'pkcsreq',
      csr_pem: 'csr',
      principal: 'challenge',
      approval_id: randomUUID(),
    });
    const made = await certificate(ago(100));
    await store.finish(profile, 'approved', {
      status: 'issued',
      certificate_pem: made.pem,
      certificate_issuer: made.issuer,
      certificate_serial: made.serial,
      certificate_not_after: ago(100),
    });
    expect(await getCert(made)).toBe(made.pem);
    expect((await new ScepRetentionStore(pg).purge(cutoff())).certificates).toBe(1);
    expect(await getCert(made)).toBeNull();
  });

  it('reads the notAfter of certificates stored before it was kept from their PEM; one that does not parse is kept', async () => {
    const expired = await issued(ago(120), 1);
    const valid = await issued(ago(-100), 1);
    await pg.query('UPDATE scep_issued_certificates SET not_after = NULL');
    await pg.query(
      `INSERT INTO scep_issued_certificates (profile_id, certificate_issuer, certificate_serial, certificate_pem, transaction_id)
       VALUES ($1, '\\x3000', '\\x020101', 'not a certificate', 'broken')`,
      [profile],
    );
    const purged = await new ScepRetentionStore(pg).purge(cutoff());
    expect(purged).toMatchObject({ notAfterRead: 3, certificates: 1 });
    expect(await getCert(expired)).toBeNull();
    expect(await getCert(valid)).toBe(valid.pem);
    const { rows } = await pg.query(
      `SELECT transaction_id, not_after::text AS not_after FROM scep_issued_certificates ORDER BY transaction_id`,
    );
    expect(rows.find((row) => row.transaction_id === 'broken').not_after).toBe('infinity');
    expect(Date.parse(rows.find((row) => row.transaction_id === valid.transactionId).not_after)).toBe(
      // The certificate's notAfter, in whole seconds as X.509 keeps it.
      Math.floor(valid.notAfter.getTime() / 1000) * 1000,
    );
    expect(await new ScepRetentionStore(pg).purge(cutoff())).toMatchObject({
      notAfterRead: 0,
      certificates: 0,
    });
  });

  it('works off a backlog in batches, saying when a batch came back full', async () => {
    for (let i = 0; i < 5; i++) await issued(ago(-100), 100 + i);
    const store = new ScepRetentionStore(pg);
    expect(await store.purge(cutoff(), 2)).toMatchObject({ transactions: 2, filledABatch: true });
    expect(await store.purge(cutoff(), 2)).toMatchObject({ transactions: 2, filledABatch: true });
    expect(await store.purge(cutoff(), 2)).toMatchObject({ transactions: 1, filledABatch: false });
  });

  it('two replicas purging at once remove each record once, without errors', async () => {
    for (let i = 0; i < 30; i++) await issued(ago(95 + i), 100 + i);
    const typeorm = new DataSource({
      type: 'postgres',
      url: database.database.url,
      extra: { options: '-c search_path=protocol_frontends' },
    });
    await typeorm.initialize();
    try {
      const removed = (pass: ScepPurged) => pass.transactions + pass.certificates;
      const passes = await Promise.all(
        [pg, typeorm, pg, typeorm].map((executor) => new ScepRetentionStore(executor).purge(cutoff(), 10)),
      );
      let total = passes.reduce((sum, pass) => sum + removed(pass), 0);
      let pass: ScepPurged;
      do {
        pass = await new ScepRetentionStore(pg).purge(cutoff(), 10);
        total += removed(pass);
      } while (pass.filledABatch);
      expect(total).toBe(60);
      const { rows } = await pg.query(
        `SELECT (SELECT count(*) FROM scep_transactions)::int AS transactions, (SELECT count(*) FROM scep_issued_certificates)::int AS certificates`,
      );
      expect(rows[0]).toEqual({ transactions: 0, certificates: 0 });
    } finally {
      await typeorm.destroy();
    }
  });
});
