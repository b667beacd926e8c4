import { rmSync } from 'node:fs';
import { runMigrations } from '@certlane/platform';
import { createTestDatabase, migrationsBefore, serviceMigrationsDir, TestDatabase } from '@certlane/testing';
import { Client } from 'pg';

const MIGRATIONS = serviceMigrationsDir('issuance');
const SPELLING_MIGRATION = '0011';

/**
 * Migration 0011 (ADR 0037) on rows written before it: reasons read back as spec 2.16 spells
 * them, and a revoke with removeFromCRL that was stored as a revocation is undone.
 */
describe('issuance migration 0011: revocation reason spelling', () => {
  let database: TestDatabase;
  let db: Client;
  let before: string;

  const migrate = (directory: string) =>
    runMigrations({ databaseUrl: database.url, schema: 'issuance', directory, demoSeed: false });

  beforeAll(async () => {
    database = await createTestDatabase('issreason');
    before = migrationsBefore('issuance', SPELLING_MIGRATION);
    await migrate(before);
    db = new Client({ connectionString: database.url });
    await db.connect();
    await db.query('SET search_path TO issuance');
    await db.query(
      `INSERT INTO issuers (id, name, kind, config_sealed) VALUES ('iss-old', 'old', 'local_ca', 'v1.x')`,
    );
    const certificate = (id: string, reason: string, expiresAt: string | null) =>
      db.query(
        `INSERT INTO certificates (id, name, common_name, issuer_id, renewal_policy_id, status, expires_at,
           revoked_at, revocation_reason)
         VALUES ($1, $1, 'old.example.com', 'iss-old', 'rp-default', 'Revoked', $2, now(), $3)`,
        [id, expiresAt, reason],
      );
    const future = new Date(Date.now() + 200 * 86_400_000).toISOString();
    await certificate('old-ca', 'cACompromise', future);
    await certificate('old-aa', 'aACompromise', future);
    await certificate('old-key', 'keyCompromise', future);
    await certificate('old-rfc-valid', 'removeFromCRL', future);
    await certificate('old-rfc-expired', 'removeFromCRL', new Date(Date.now() - 86_400_000).toISOString());
    await certificate('old-rfc-unissued', 'removeFromCRL', null);
    for (const [serial, reason] of [
      ['4a', 'cACompromise'],
      ['4b', 'aACompromise'],
      ['4c', 'removeFromCRL'],
      ['4d', 'certificateHold'],
    ]) {
      await db.query(`INSERT INTO revocations (issuer_id, serial_hex, reason) VALUES ('iss-old', $1, $2)`, [
        serial,
        reason,
      ]);
    }
    await migrate(MIGRATIONS);
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await database?.drop();
    if (before) rmSync(before, { recursive: true, force: true });
  });

  it('rewrites cACompromise and aACompromise to caCompromise and aaCompromise on certificates and revocations', async () => {
    const certificates = await db.query(
      `SELECT id, revocation_reason FROM certificates WHERE id IN ('old-ca', 'old-aa', 'old-key') ORDER BY id`,
    );
    expect(certificates.rows).toEqual([
      { id: 'old-aa', revocation_reason: 'aaCompromise' },
      { id: 'old-ca', revocation_reason: 'caCompromise' },
      { id: 'old-key', revocation_reason: 'keyCompromise' },
    ]);
    const revocations = await db.query('SELECT serial_hex, reason FROM revocations ORDER BY serial_hex');
    expect(revocations.rows).toEqual([
      { serial_hex: '4a', reason: 'caCompromise' },
      { serial_hex: '4b', reason: 'aaCompromise' },
      { serial_hex: '4d', reason: 'certificateHold' },
    ]);
  });

  it('undoes a removeFromCRL stored as a revocation: the certificate goes back to its dates, unrevoked', async () => {
    const { rows } = await db.query(
      `SELECT id, status, revoked_at, revocation_reason FROM certificates WHERE id LIKE 'old-rfc-%' ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: 'old-rfc-expired', status: 'Expired', revoked_at: null, revocation_reason: null },
      { id: 'old-rfc-unissued', status: 'Pending', revoked_at: null, revocation_reason: null },
      { id: 'old-rfc-valid', status: 'Active', revoked_at: null, revocation_reason: null },
    ]);
  });

  it('refuses the old spelling and removeFromCRL in the database from now on', async () => {
    for (const reason of ['cACompromise', 'aACompromise', 'removeFromCRL']) {
      await expect(
        db.query(`INSERT INTO revocations (issuer_id, serial_hex, reason) VALUES ('iss-old', '4e', $1)`, [
          reason,
        ]),
      ).rejects.toThrow(/check constraint/);
      await expect(
        db.query(`UPDATE certificates SET revocation_reason = $1 WHERE id = 'old-key'`, [reason]),
      ).rejects.toThrow(/check constraint/);
    }
  });
});
