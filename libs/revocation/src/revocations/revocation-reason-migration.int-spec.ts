import { rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { runMigrations } from '@certlane/platform';
import { createTestDatabase, migrationsBefore, serviceMigrationsDir, TestDatabase } from '@certlane/testing';
import { Client } from 'pg';

const MIGRATIONS = serviceMigrationsDir('revocation');
const SPELLING_MIGRATION = '0003';

/**
 * Migration 0003 (ADR 0037) on rows stored before it: the JSON CRL reads reasons as spec 2.16
 * spells them, and rows a removeFromCRL revoke left (listed by no signed CRL, good in OCSP) go.
 */
describe('revocation migration 0003: revocation reason spelling', () => {
  let database: TestDatabase;
  let db: Client;
  let before: string;

  const migrate = (directory: string) =>
    runMigrations({ databaseUrl: database.url, schema: 'revocation', directory, demoSeed: false });
  const insert = (serial: string, reason: string) =>
    db.query(
      `INSERT INTO revocations (issuer_id, serial_hex, reason, revoked_at, event_id, ca_id)
       VALUES ('iss-local', $1, $2, now(), $3, 'ca-1')`,
      [serial, reason, randomUUID()],
    );

  beforeAll(async () => {
    database = await createTestDatabase('revreason');
    before = migrationsBefore('revocation', SPELLING_MIGRATION);
    await migrate(before);
    db = new Client({ connectionString: database.url });
    await db.connect();
    await db.query('SET search_path TO revocation');
    await insert('4a', 'cACompromise');
    await insert('4b', 'aACompromise');
    await insert('4c', 'removeFromCRL');
    await insert('4d', 'certificateHold');
    await migrate(MIGRATIONS);
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await database?.drop();
    if (before) rmSync(before, { recursive: true, force: true });
  });

  it('rewrites cACompromise and aACompromise to caCompromise and aaCompromise and drops removeFromCRL rows', async () => {
    const { rows } = await db.query('SELECT serial_hex, reason FROM revocations ORDER BY serial_hex');
    expect(rows).toEqual([
      { serial_hex: '4a', reason: 'caCompromise' },
      { serial_hex: '4b', reason: 'aaCompromise' },
      { serial_hex: '4d', reason: 'certificateHold' },
    ]);
  });

  it('accepts the spec spelling and refuses the old one and removeFromCRL from now on', async () => {
    await insert('5a', 'aaCompromise');
    for (const reason of ['cACompromise', 'aACompromise', 'removeFromCRL']) {
      await expect(insert('5b', reason)).rejects.toThrow(/check constraint/);
    }
  });
});
