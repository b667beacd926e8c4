import { violationSummaryOf } from './violation-summary';

const now = new Date('2026-11-25T00:00:00.000Z');

describe('violationSummaryOf', () => {
  it('takes the totals from the row over all severities and each severity from its row', () => {
    expect(
      violationSummaryOf(
        [
          { severity: 'Error', open: 3, rules: 1, certificates: 3 },
          { severity: 'Critical', open: 1, rules: 1, certificates: 1 },
          { severity: null, open: 4, rules: 2, certificates: 3 },
        ],
        now,
      ),
    ).toEqual({
      open: 4,
      by_severity: { Warning: 0, Error: 3, Critical: 1 },
      rules: 2,
      certificates: 3,
      generated_at: '2026-11-25T00:00:00.000Z',
    });
  });

  it('is all zeros when nothing is open (the query answers no row at all)', () => {
    expect(violationSummaryOf([], now)).toMatchObject({
      open: 0,
      by_severity: { Warning: 0, Error: 0, Critical: 0 },
      rules: 0,
      certificates: 0,
    });
  });
});
