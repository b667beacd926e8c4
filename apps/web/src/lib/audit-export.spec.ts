import { auditExportQuery, defaultExportForm, filtersNotExported, localInputValue } from './audit-export';

// Jest runs with TZ=UTC, so local datetime-local values read as UTC here.
const NOW = new Date('2026-03-10T12:00:30.000Z');

describe('the audit export query', () => {
  it('always sends the window, the limit and the category the page shows', () => {
    expect(
      auditExportQuery({ from: '2026-03-01T00:00', to: '2026-03-02T06:30', limit: '500' }, 'auth', NOW),
    ).toEqual({
      query: {
        from: '2026-03-01T00:00:00.000Z',
        to: '2026-03-02T06:30:00.000Z',
        limit: 500,
        category: 'auth',
      },
    });
  });

  it('opens on the last 24 hours up to now and the default limit, every category', () => {
    const form = defaultExportForm(NOW);
    expect(form).toEqual({ from: '2026-03-09T12:00', to: '', limit: '10000' });
    expect(auditExportQuery(form, undefined, NOW)).toEqual({
      query: { from: '2026-03-09T12:00:00.000Z', to: NOW.toISOString(), limit: 10000 },
    });
    expect(localInputValue(new Date('2026-01-02T03:04:59Z'))).toBe('2026-01-02T03:04');
  });

  it('refuses what the API would: more than 90 days, From after To, a limit outside 1..100000', () => {
    const form = { from: '2025-12-01T00:00', to: '2026-03-02T00:00', limit: '10' };
    expect(auditExportQuery(form, undefined, NOW)).toEqual({
      error: 'The window from From to To must be at most 90 days.',
    });
    expect(auditExportQuery({ ...form, from: '2026-03-03T00:00' }, undefined, NOW)).toEqual({
      error: 'From must not be after To.',
    });
    for (const limit of ['0', '100001', '1.5', '', 'many']) {
      expect(auditExportQuery({ ...form, from: '2026-03-01T00:00', limit }, undefined, NOW)).toEqual({
        error: 'The limit must be a whole number from 1 to 100000.',
      });
    }
  });

  it('names the list filters the export cannot apply', () => {
    expect(filtersNotExported({ category: 'auth' })).toEqual([]);
    expect(filtersNotExported({ category: 'auth', actor_id: 'alice', resource_id: '', action: 'x' })).toEqual(
      ['actor', 'action'],
    );
  });
});
