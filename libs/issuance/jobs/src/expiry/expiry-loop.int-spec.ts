import { CertificateStatus, CertificateStatusChanged } from '@certlane/contracts';
import { eventually, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import { insertCertificate } from '@certlane/issuance-inventory/testing';

const DAY_MS = 86_400_000;
const BULK = 2500; // more than two batches of EXPIRY_BATCH_SIZE (1000)

/**
 * The expiry loop (ADR 0024) in two real issuance processes on one database, sweeping every
 * second: certificates whose dates say Expiring or Expired move, the others stay, and each change
 * is published once through the outbox although both replicas sweep.
 */
describe('expiry loop', () => {
  let system: TestSystem;
  let db: Client;
  const at = (days: number) => new Date(Date.now() + days * DAY_MS);

  /** [id, status, expires_at, renewal policy, status the loop must leave it in] */
  const fixture: [string, CertificateStatus, Date | null, string, CertificateStatus][] = [
    ['active-inside-window', 'Active', at(10), 'rp-window-30', 'Expiring'],
    ['active-outside-window', 'Active', at(100), 'rp-window-30', 'Active'],
    ['active-short-window', 'Active', at(10), 'rp-window-1', 'Active'],
    ['active-expired', 'Active', at(-0.05), 'rp-window-30', 'Expired'],
    ['expiring-expired', 'Expiring', at(-3), 'rp-window-30', 'Expired'],
    ['expiring-still', 'Expiring', at(5), 'rp-window-30', 'Expiring'],
    ['expiring-window-shrank', 'Expiring', at(10), 'rp-window-1', 'Active'],
    ['failed-expired', 'Failed', at(-1), 'rp-window-30', 'Expired'],
    ['failed-inside-window', 'Failed', at(10), 'rp-window-30', 'Failed'],
    ['renewing-expired', 'RenewalInProgress', at(-1), 'rp-window-30', 'RenewalInProgress'],
    ['revoked-expired', 'Revoked', at(-1), 'rp-window-30', 'Revoked'],
    ['archived-expired', 'Archived', at(-1), 'rp-window-30', 'Archived'],
    ['expired-already', 'Expired', at(-10), 'rp-window-30', 'Expired'],
    ['pending-no-dates', 'Pending', null, 'rp-window-30', 'Pending'],
  ];
  const moving = fixture.filter(([, from, , , to]) => from !== to);

  beforeAll(async () => {
    system = await startTestSystem('expiry', ['issuance', 'issuance'], {
      SERVICE_EXPIRY_SWEEP_INTERVAL: '1s',
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    // Everything in one transaction, so the sweep that moves one row has seen all of them.
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO issuance.renewal_policies (id, name, renewal_window_days, max_retries, retry_interval_seconds)
       VALUES ('rp-window-30', 'Window 30', 30, 1, 3600), ('rp-window-1', 'Window 1', 1, 1, 3600)`,
    );
    for (const [id, status, expires, policy] of fixture) {
      await insertCertificate(db, { id, status, expires_at: expires, renewal_policy_id: policy });
    }
    await db.query(
      `INSERT INTO issuance.certificates (id, name, common_name, issuer_id, renewal_policy_id, status, expires_at)
       SELECT 'bulk-' || i, 'bulk ' || i, 'bulk' || i || '.example.com', 'iss-local', 'rp-window-30', 'Active',
              now() - interval '1 hour'
       FROM generate_series(1, $1::int) AS i`,
      [BULK],
    );
    await db.query('COMMIT');
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  const statuses = async () =>
    Object.fromEntries(
      (
        await db.query<{ id: string; status: CertificateStatus }>(
          `SELECT id, status FROM issuance.certificates WHERE id NOT LIKE 'bulk-%'`,
        )
      ).rows.map((row) => [row.id, row.status]),
    );

  it('moves what the dates say, within the deadline, and leaves the rest', async () => {
    const want = Object.fromEntries(fixture.map(([id, , , , to]) => [id, to]));
    await eventually(
      async () => {
        const { rows } = await db.query(
          `SELECT count(*)::int AS n FROM issuance.certificates WHERE id LIKE 'bulk-%' AND status = 'Expired'`,
        );
        const now = await statuses();
        return rows[0].n === BULK && fixture.every(([id, , , , to]) => now[id] === to);
      },
      'the certificates to move by their dates',
      20_000,
    );
    expect(await statuses()).toEqual(want);
  });

  it('publishes one status-changed event per changed certificate, although two replicas sweep', async () => {
    await eventually(async () => {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM issuance.outbox
         WHERE subject = 'issuance.v1.certificate.status-changed' AND published_at IS NOT NULL`,
      );
      return rows[0].n >= BULK + moving.length;
    }, 'the status-changed events to be published');
    const { rows } = await db.query<{ envelope: { actor_id: string; data: CertificateStatusChanged } }>(
      `SELECT envelope FROM issuance.outbox WHERE subject = 'issuance.v1.certificate.status-changed'`,
    );
    expect(rows).toHaveLength(BULK + moving.length);
    const byCertificate = new Map(rows.map((row) => [row.envelope.data.certificate_id, row.envelope]));
    expect(byCertificate.size).toBe(rows.length);
    for (const [id, from, , , to] of moving) {
      expect(byCertificate.get(id)).toMatchObject({
        actor_id: 'system',
        data: { certificate_id: id, from, to },
      });
    }
    expect(byCertificate.get('bulk-1')?.data).toMatchObject({ from: 'Active', to: 'Expired' });
  });
});
