import { startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import { COMPACT_CERTIFICATE_COUNTS } from './certificate-counts';
import {
  certificateListCountQuery,
  CertificateListFilter,
  certificateListWhere,
} from './certificate-list.query';
import { insertCertificate } from './testing-fixtures';

const DIMENSIONS = ['status', 'environment', 'owner_id', 'team_id', 'issuer_id'] as const;

/**
 * The per-filter certificate counts of migration 0005 (triggers on certificates, compaction)
 * always equal COUNT(*) of the list's filter (Archived left out unless the status is asked for,
 * migration 0013), whatever inserts, updates and deletes happened.
 */
describe('certificate counts', () => {
  let system: TestSystem;
  let db: Client;

  beforeAll(async () => {
    system = await startTestSystem('counts', ['issuance']);
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    await db.query('SET search_path TO issuance');
    await db.query(`INSERT INTO teams (id, name) VALUES ('t1', 'T1'), ('t2', 'T2')`);
    await db.query(`INSERT INTO owners (id, name, team_id) VALUES ('o1', 'O1', 't1'), ('o2', 'O2', 't2')`);
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  /** Every filter of one dimension (and none) whose counted total differs from COUNT(*). */
  async function mismatches(): Promise<unknown[]> {
    const filters: CertificateListFilter[] = [{}];
    for (const dimension of DIMENSIONS) {
      const { rows } = await db.query(
        `SELECT DISTINCT ${dimension} AS v FROM certificates WHERE ${dimension} IS NOT NULL`,
      );
      for (const { v } of rows) filters.push({ [dimension]: v });
      filters.push({ [dimension]: 'nothing-has-this' });
    }
    const wrong: unknown[] = [];
    for (const filter of filters) {
      const counted = certificateListCountQuery(filter);
      const [{ total }] = (await db.query(counted.text, counted.values)).rows;
      const { clause, values } = certificateListWhere(filter);
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM certificates ${clause}`, values);
      if (total !== rows[0].n) wrong.push({ filter, counted: total, actual: rows[0].n });
    }
    return wrong;
  }

  it('counts inserts, updates of counted and other columns, and deletes', async () => {
    expect(await mismatches()).toEqual([]);
    await db.query(
      `INSERT INTO certificates (id, name, common_name, environment, owner_id, team_id, issuer_id, renewal_policy_id, status)
       SELECT 'c' || i, 'c', 'c.example.com', (ARRAY['prod', 'dev'])[i % 2 + 1],
              CASE WHEN i % 3 = 0 THEN NULL ELSE 'o' || (i % 2 + 1) END, CASE WHEN i % 3 = 0 THEN NULL ELSE 't' || (i % 2 + 1) END,
              'iss-local', 'rp-default', (ARRAY['Active', 'Expiring', 'Pending'])[i % 3 + 1]
       FROM generate_series(1, 300) AS i`,
    );
    await insertCertificate(db, { id: 'single', status: 'Failed', environment: 'staging', owner_id: 'o1' });
    expect(await mismatches()).toEqual([]);
    const before = (await db.query('SELECT count(*)::int AS n FROM certificate_count_deltas')).rows[0].n;
    await db.query(`UPDATE certificates SET name = 'renamed', updated_at = now()`);
    expect((await db.query('SELECT count(*)::int AS n FROM certificate_count_deltas')).rows[0].n).toBe(
      before,
    );
    await db.query(`UPDATE certificates SET status = 'Archived' WHERE environment = 'dev'`);
    await db.query(
      `UPDATE certificates SET owner_id = 'o2', team_id = NULL WHERE owner_id = 'o1' AND status = 'Active'`,
    );
    await db.query(
      `UPDATE certificates SET environment = 'qa', owner_id = NULL WHERE id IN ('c1', 'c2', 'single')`,
    );
    expect(await mismatches()).toEqual([]);
    await db.query(`DELETE FROM certificates WHERE id LIKE 'c1%'`);
    expect(await mismatches()).toEqual([]);
  });

  it('keeps the counts through compaction, one row per key', async () => {
    await db.query(COMPACT_CERTIFICATE_COUNTS);
    expect(await mismatches()).toEqual([]);
    const { rows } = await db.query(
      `SELECT dimension, value, count(*)::int AS n FROM certificate_count_deltas GROUP BY 1, 2 HAVING count(*) > 1`,
    );
    expect(rows).toEqual([]);
    await db.query(`UPDATE certificates SET status = 'Revoked' WHERE status = 'Expiring'`);
    await db.query(COMPACT_CERTIFICATE_COUNTS);
    expect(await mismatches()).toEqual([]);
  });
});
