import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { CertlaneError } from '../errors/certlane-error';
import { AuditExportQuery, AuditListQuery, parseAuditCategories, planAuditExport } from './audit-query';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** What the gateway's validation does with a query string: transform, then check. */
async function messages(cls: new () => object, raw: Record<string, unknown>): Promise<string[]> {
  const errors = await validate(plainToInstance(cls, raw), {
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
  });
  return errors.flatMap((e) => Object.values(e.constraints ?? {}));
}

function refusal(query: AuditExportQuery): CertlaneError {
  try {
    planAuditExport(query, NOW);
  } catch (error) {
    if (error instanceof CertlaneError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe(planAuditExport.name, () => {
  it('defaults to the last 24 hours and 10000 events of every category', () => {
    expect(planAuditExport({}, NOW)).toEqual({
      from: new Date(NOW.getTime() - DAY),
      to: NOW,
      limit: 10_000,
      categories: [],
    });
  });

  it('takes 24 hours before `to` when only `to` is given, and up to now when only `from` is', () => {
    expect(planAuditExport({ to: '2026-02-01T00:00:00Z' }, NOW)).toMatchObject({
      from: new Date('2026-01-31T00:00:00Z'),
      to: new Date('2026-02-01T00:00:00Z'),
    });
    expect(planAuditExport({ from: '2026-02-28T00:00:00Z' }, NOW)).toMatchObject({
      from: new Date('2026-02-28T00:00:00Z'),
      to: NOW,
    });
  });

  it('accepts a window of exactly 90 days and an empty one', () => {
    const to = '2026-03-01T00:00:00.000Z';
    const from = new Date(new Date(to).getTime() - 90 * DAY).toISOString();
    expect(planAuditExport({ from, to }, NOW).from.toISOString()).toBe(from);
    expect(planAuditExport({ from: to, to }, NOW).from.toISOString()).toBe(to);
  });

  it('refuses a window longer than 90 days', () => {
    const to = '2026-03-01T00:00:00.000Z';
    const from = new Date(new Date(to).getTime() - 90 * DAY - 1).toISOString();
    const error = refusal({ from, to });
    expect(error.code).toBe('validation_failed');
    expect(error.details).toEqual({
      fields: [{ field: 'to', message: 'the window from..to must be at most 90 days' }],
    });
  });

  it('refuses `from` after `to`, including a `from` in the future without `to`', () => {
    expect(refusal({ from: '2026-02-02T00:00:00Z', to: '2026-02-01T00:00:00Z' }).message).toBe(
      'from must not be after to',
    );
    expect(refusal({ from: '2026-03-02T00:00:00Z' }).code).toBe('validation_failed');
  });

  it('refuses a timestamp that passes the ISO check but is not a date', () => {
    expect(refusal({ from: '2026-W09-1' }).details).toEqual({
      fields: [{ field: 'from', message: 'from must be an ISO 8601 timestamp' }],
    });
  });

  it('passes limit and categories through, without duplicate categories', () => {
    expect(planAuditExport({ limit: 5, category: 'auth,config,auth' }, NOW)).toMatchObject({
      limit: 5,
      categories: ['auth', 'config'],
    });
  });
});

describe(parseAuditCategories.name, () => {
  it('reads nothing as every category', () => {
    expect(parseAuditCategories(undefined)).toEqual([]);
    expect(parseAuditCategories('cert_lifecycle')).toEqual(['cert_lifecycle']);
  });
});

describe(AuditExportQuery.name, () => {
  it.each([
    [{}, []],
    [{ limit: '1' }, []],
    [{ limit: '100000' }, []],
    [{ limit: '0' }, ['limit must be at least 1']],
    [{ limit: '100001' }, ['limit must be at most 100000']],
    [{ limit: '10.5' }, ['limit must be an integer']],
    [{ limit: 'ten' }, ['limit must be an integer']],
    [{ category: 'auth' }, []],
    [{ category: 'auth,config,cert_lifecycle' }, []],
    [
      { category: 'auth,nope' },
      ['category must be one or more of cert_lifecycle, auth, config, comma-separated'],
    ],
    [
      { category: 'auth,' },
      ['category must be one or more of cert_lifecycle, auth, config, comma-separated'],
    ],
    [{ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00.123+02:00' }, []],
    [{ from: 'yesterday' }, ['from must be an ISO 8601 timestamp']],
  ])('%j -> %j', async (raw, expected) => {
    expect(await messages(AuditExportQuery, raw)).toEqual(expected);
  });

  it('refuses unknown query parameters', async () => {
    expect(await messages(AuditExportQuery, { format: 'csv' })).toEqual(['property format should not exist']);
  });
});

describe(AuditListQuery.name, () => {
  it.each([
    [{ page: '2', per_page: '500', category: 'config', action: 'renewal_policy.created' }, []],
    [{ actor_id: 'alice', resource_type: 'role', resource_id: 'r-x' }, []],
    [{ to: 'now' }, ['to must be an ISO 8601 timestamp']],
    [{ per_page: '501' }, ['per_page must be at most 500']],
    [
      { category: 'security' },
      ['category must be one or more of cert_lifecycle, auth, config, comma-separated'],
    ],
  ])('%j -> %j', async (raw, expected) => {
    expect(await messages(AuditListQuery, raw)).toEqual(expected);
  });
});
