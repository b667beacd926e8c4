import { CERTIFICATE_STATUSES, CertificateStatus } from '@certlane/contracts';
import { nextCertificateStatus, statusByValidity } from '@certlane/issuance-domain';
import { createTestDatabase, TestDatabase } from '@certlane/testing';
import { Client } from 'pg';
import { clockStatusSql } from './expiry.queries';

const DAY_MS = 86_400_000;

/**
 * The expiry loop decides in SQL; the domain decides in TypeScript. They must agree on every
 * (status, expires_at, window, now), boundaries included, and in a session time zone with a
 * daylight-saving change inside the window (Europe/Berlin, 2026-03-29).
 */
describe('the expiry SQL and nextCertificateStatus(clock)', () => {
  let database: TestDatabase;
  let db: Client;

  beforeAll(async () => {
    database = await createTestDatabase('expirypredicate');
    db = new Client({ connectionString: database.url });
    await db.connect();
    await db.query(`SET TIME ZONE 'Europe/Berlin'`);
  });

  afterAll(async () => {
    await db?.end();
    await database?.drop();
  });

  it('gives the status the pure function gives, for a table of dates', async () => {
    const nows = [new Date('2026-03-28T12:00:00Z'), new Date('2026-06-01T00:00:00.000Z')];
    const windows = [1, 30, 365];
    const cases: { status: CertificateStatus; expires: Date | null; window: number; now: Date }[] = [];
    for (const now of nows) {
      for (const window of windows) {
        const offsets = [
          -DAY_MS,
          -1,
          0,
          1,
          window * DAY_MS - 1,
          window * DAY_MS,
          window * DAY_MS + 1,
          400 * DAY_MS,
        ];
        for (const status of CERTIFICATE_STATUSES) {
          cases.push({ status, expires: null, window, now });
          for (const offset of offsets) {
            cases.push({ status, expires: new Date(now.getTime() + offset), window, now });
          }
        }
      }
    }
    const { rows } = await db.query<{ i: number; next: CertificateStatus }>(
      `SELECT t.i, ${clockStatusSql('t.status', 't.expires_at', 't.window_days', 't.now')} AS next
       FROM unnest($1::int[], $2::text[], $3::timestamptz[], $4::int[], $5::timestamptz[])
         AS t(i, status, expires_at, window_days, now)
       ORDER BY t.i`,
      [
        cases.map((_, i) => i),
        cases.map((c) => c.status),
        cases.map((c) => c.expires),
        cases.map((c) => c.window),
        cases.map((c) => c.now),
      ],
    );
    const expected = cases.map((c) => {
      if (c.expires === null) return c.status;
      const transition = nextCertificateStatus(c.status, {
        kind: 'clock',
        validity: statusByValidity(c.expires, c.now, c.window),
      });
      if (!transition.ok) throw new Error('a clock event is never refused');
      return transition.to;
    });
    const disagreements = cases
      .map((c, i) => ({ ...c, sql: rows[i].next, domain: expected[i] }))
      .filter((c) => c.sql !== c.domain);
    expect(disagreements).toEqual([]);
    expect(cases.length).toBeGreaterThan(400);
    // The table exercises every outcome, not only "unchanged".
    expect(new Set(rows.map((r) => r.next))).toEqual(new Set(CERTIFICATE_STATUSES));
  });
});
