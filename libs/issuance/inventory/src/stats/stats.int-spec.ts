import { ExpirationTimelineDto, IssuanceRateDto, JobTrendsDto, StatsSummaryDto } from '@certlane/contracts';
import { httpsRequest, startTestSystem, TestSystem } from '@certlane/testing';
import { Client } from 'pg';
import { insertCertificate, insertJob, insertVersion } from '../inventory/testing-fixtures';

const DAY_MS = 86_400_000;
/** The UTC midnight that starts today, fixed once: every fixture date is relative to it. */
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const dayAt = (offsetDays: number, hour = 12) => new Date(today + offsetDays * DAY_MS + hour * 3_600_000);
const dateOf = (offsetDays: number) => new Date(today + offsetDays * DAY_MS).toISOString().slice(0, 10);

/** A series of `days` days starting `from` days after today, zero except where `counts` says. */
function series(from: number, days: number, counts: Record<number, number>) {
  return Array.from({ length: days }, (_, i) => ({ date: dateOf(from + i), count: counts[from + i] ?? 0 }));
}

/**
 * The dashboard stats (ADR 0024) on a known fixture, through the real gateway and issuance
 * processes: exact counts per status, per window and per UTC day, zero days included.
 */
describe('stats', () => {
  let system: TestSystem;
  let db: Client;

  const get = (path: string) =>
    httpsRequest(`${system.services['api-gateway'].url}${path}`, {
      ca: system.ca,
      headers: { authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}` },
    });

  beforeAll(async () => {
    // No expiry sweep after the start: it would move the Active rows inside the renewal window to Expiring mid-test.
    system = await startTestSystem('stats', ['auth', 'issuance', 'api-gateway'], {
      SERVICE_EXPIRY_SWEEP_INTERVAL: '24h',
    });
    db = new Client({ connectionString: system.database.url });
    await db.connect();
    const certificates: [string, string, Date | null][] = [
      ['c-soon-a', 'Expiring', dayAt(3, 1)],
      ['c-soon-b', 'Expiring', dayAt(3, 23)],
      ['c-month', 'Active', dayAt(20)],
      ['c-quarter', 'Active', dayAt(60)],
      ['c-later', 'Active', dayAt(120)],
      ['c-revoked', 'Revoked', dayAt(5)],
      ['c-archived', 'Archived', dayAt(5)],
      ['c-expired-today', 'Expired', dayAt(0, 0)],
      ['c-expired', 'Expired', dayAt(-2)],
      ['c-pending', 'Pending', null],
      ['c-edge', 'Active', dayAt(9, 0)],
      ['c-out', 'Active', dayAt(10, 0)],
      ['c-renewing', 'RenewalInProgress', dayAt(25)],
      ['c-failed', 'Failed', dayAt(-1)],
    ];
    for (const [id, status, expires] of certificates) {
      await insertCertificate(db, { id, status: status as never, expires_at: expires });
    }
    const versions: Date[] = [dayAt(0, 0), dayAt(-1, 12), dayAt(-1, 13), dayAt(-6, 0), dayAt(-7, 23)];
    for (const [i, issuedAt] of versions.entries()) {
      await insertVersion(db, { certificate_id: 'c-month', version: i + 1, issued_at: issuedAt });
    }
    const jobs: [string, Date | null][] = [
      ['Completed', dayAt(0, 0)],
      ['Failed', dayAt(-1, 5)],
      ['Cancelled', dayAt(-1, 6)],
      ['Completed', dayAt(-1, 7)],
      ['Completed', dayAt(-2, 0)],
      ['Completed', dayAt(-3, 23)],
      ['Running', null],
      ['Pending', null],
    ];
    for (const [status, completedAt] of jobs) {
      await insertJob(db, { certificate_id: 'c-month', status: status as never, completed_at: completedAt });
    }
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('summarises certificates by every status, expiring windows of live ones, and jobs by status', async () => {
    const response = await get('/api/v1/stats/summary');
    expect(response.status).toBe(200);
    const summary = response.json() as StatsSummaryDto;
    expect(summary).toEqual({
      total_certificates: 14,
      by_status: {
        Pending: 1,
        Active: 5,
        Expiring: 2,
        Expired: 2,
        RenewalInProgress: 1,
        Failed: 1,
        Revoked: 1,
        Archived: 1,
      },
      // (now, now + N days], Archived and Revoked left out
      expiring_within: { days_7: 2, days_30: 6, days_90: 7 },
      jobs_by_status: {
        Pending: 1,
        AwaitingCSR: 0,
        AwaitingApproval: 0,
        Running: 1,
        Completed: 4,
        Failed: 1,
        Cancelled: 1,
      },
      generated_at: expect.any(String),
    });
  });

  it('gives the expiration timeline per UTC day ahead, today first, zero days included', async () => {
    const response = await get('/api/v1/stats/expiration-timeline?days=10');
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ days: 10, data: series(0, 10, { 0: 1, 3: 2, 9: 1 }) });
  });

  it('defaults the expiration timeline to 90 days', async () => {
    const body = (await get('/api/v1/stats/expiration-timeline')).json() as ExpirationTimelineDto;
    expect(body).toEqual({ days: 90, data: series(0, 90, { 0: 1, 3: 2, 9: 1, 10: 1, 20: 1, 25: 1, 60: 1 }) });
  });

  it('gives versions issued per UTC day behind, today last', async () => {
    const response = await get('/api/v1/stats/issuance-rate?days=7');
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ days: 7, data: series(-6, 7, { [-6]: 1, [-1]: 2, 0: 1 }) });
    const byDefault = (await get('/api/v1/stats/issuance-rate')).json() as IssuanceRateDto;
    expect(byDefault.days).toBe(30);
    expect(byDefault.data).toEqual(series(-29, 30, { [-7]: 1, [-6]: 1, [-1]: 2, 0: 1 }));
  });

  it('gives jobs finished per UTC day by outcome', async () => {
    const response = await get('/api/v1/stats/job-trends?days=3');
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({
      days: 3,
      data: [
        { date: dateOf(-2), completed: 1, failed: 0, cancelled: 0 },
        { date: dateOf(-1), completed: 1, failed: 1, cancelled: 1 },
        { date: dateOf(0), completed: 1, failed: 0, cancelled: 0 },
      ],
    });
    const byDefault = (await get('/api/v1/stats/job-trends')).json() as JobTrendsDto;
    expect(byDefault.data).toHaveLength(30);
    expect(byDefault.data.reduce((sum, day) => sum + day.completed, 0)).toBe(4);
  });

  it('accepts days from 1 to 365', async () => {
    const one = (await get('/api/v1/stats/expiration-timeline?days=1')).json() as ExpirationTimelineDto;
    expect(one.data).toEqual([{ date: dateOf(0), count: 1 }]);
    const year = (await get('/api/v1/stats/expiration-timeline?days=365')).json() as ExpirationTimelineDto;
    expect(year.data).toHaveLength(365);
    expect(year.data.reduce((sum, day) => sum + day.count, 0)).toBe(9);
  });

  it.each(['0', '366', '-1', '1.5', 'abc', ''])('refuses days=%s with 400', async (days) => {
    for (const path of ['expiration-timeline', 'issuance-rate', 'job-trends']) {
      const response = await get(`/api/v1/stats/${path}?days=${days}`);
      expect([path, response.status]).toEqual([path, 400]);
      expect(response.json()).toMatchObject({ code: 'validation_failed' });
    }
  });
});
