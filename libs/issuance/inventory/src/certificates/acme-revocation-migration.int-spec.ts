import { rmSync } from 'node:fs';
import { runMigrations } from '@certlane/platform';
import { createTestDatabase, migrationsBefore, serviceMigrationsDir, TestDatabase } from '@certlane/testing';
import { Client } from 'pg';

const MIGRATIONS = serviceMigrationsDir('issuance');
const ACME_REVOCATIONS_MIGRATION = '0021';

/**
 * Migration 0021 (ADR 0053 amendment, seventh stop) on rows written before it: a certificate whose
 * current version's serial its issuer records as revoked (ACME's revokeCert, which left it Active)
 * becomes Revoked with the issuer's reason and date; one whose revoked serial is an older version
 * keeps its status.
 */
describe('issuance migration 0021: ACME revocations reach the inventory', () => {
  let database: TestDatabase;
  let db: Client;
  let before: string;
  const revokedAt = new Date('2026-11-01T10:00:00Z');

  const migrate = (directory: string) =>
    runMigrations({ databaseUrl: database.url, schema: 'issuance', directory, demoSeed: false });

  beforeAll(async () => {
    database = await createTestDatabase('issacmerev');
    before = migrationsBefore('issuance', ACME_REVOCATIONS_MIGRATION);
    await migrate(before);
    db = new Client({ connectionString: database.url });
    await db.connect();
    await db.query('SET search_path TO issuance');
    await db.query(
      `INSERT INTO issuers (id, name, kind, config_sealed) VALUES ('iss-old', 'old', 'local_ca', 'v1.x')`,
    );
    const expires = new Date(Date.now() + 60 * 86_400_000);
    const certificate = async (id: string, status: string, serials: string[]) => {
      await db.query(
        `INSERT INTO certificates (id, name, common_name, issuer_id, renewal_policy_id, source, status, expires_at)
         VALUES ($1, $1, 'old.example.com', 'iss-old', 'rp-default', 'ACME', $2, $3)`,
        [id, status, expires],
      );
      for (const [index, serial] of serials.entries()) {
        await db.query(
          `INSERT INTO certificate_versions (id, certificate_id, version, serial_number, fingerprint_sha256,
             key_algorithm, key_size, issued_at, not_before, not_after, cert_pem, issuer_id)
           VALUES ($1, $2, $3, $4, $4, 'ECDSA-P256', 256, now(), now(), $5, 'pem', 'iss-old')`,
          [`ver-${id}-${index}`, id, index + 1, serial, expires],
        );
      }
      await db.query(`UPDATE certificates SET current_version_id = $2 WHERE id = $1`, [
        id,
        `ver-${id}-${serials.length - 1}`,
      ]);
    };
    await certificate('mc-revoked-current', 'Active', ['a1']);
    await certificate('mc-revoked-older', 'Expiring', ['b1', 'b2']);
    await certificate('mc-not-revoked', 'Active', ['c1']);
    for (const [serial, reason] of [
      ['a1', 'keyCompromise'],
      ['b1', 'superseded'],
    ]) {
      await db.query(
        `INSERT INTO revocations (issuer_id, serial_hex, reason, revoked_at) VALUES ('iss-old', $1, $2, $3)`,
        [serial, reason, revokedAt],
      );
    }
    await migrate(MIGRATIONS);
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await database?.drop();
    if (before) rmSync(before, { recursive: true, force: true });
  });

  it('revokes the certificates whose current version is revoked at the issuer, and only those', async () => {
    const { rows } = await db.query(
      `SELECT id, status, revoked_at, revocation_reason FROM certificates ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: 'mc-not-revoked', status: 'Active', revoked_at: null, revocation_reason: null },
      {
        id: 'mc-revoked-current',
        status: 'Revoked',
        revoked_at: revokedAt,
        revocation_reason: 'keyCompromise',
      },
      { id: 'mc-revoked-older', status: 'Expiring', revoked_at: null, revocation_reason: null },
    ]);
  });
});
