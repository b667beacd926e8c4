import { CA_EXPIRY_ALERT_DAYS, caExpiryWarningsDue } from './ca-expiry';

const DAY_MS = 86_400_000;
const now = new Date('2026-11-30T12:00:00Z');
const endIn = (days: number) => new Date(now.getTime() + days * DAY_MS);

describe('CA expiry warnings', () => {
  it('warns half a year ahead, then at 90, 30, 7 days and the last day', () => {
    expect(CA_EXPIRY_ALERT_DAYS).toEqual([180, 90, 30, 7, 1]);
  });

  it('records nothing while the end is further than the first threshold', () => {
    expect(caExpiryWarningsDue(endIn(181), now, [])).toEqual({ announce: null, record: [] });
  });

  it('records every threshold crossed and announces only the nearest to the end', () => {
    expect(caExpiryWarningsDue(endIn(20), now, [])).toEqual({ announce: 30, record: [30, 90, 180] });
  });

  it('announces a newly crossed threshold once the earlier ones are recorded', () => {
    expect(caExpiryWarningsDue(endIn(6), now, [180, 90, 30])).toEqual({ announce: 7, record: [7] });
  });

  it('announces nothing again for thresholds already recorded', () => {
    expect(caExpiryWarningsDue(endIn(6), now, [180, 90, 30, 7])).toEqual({ announce: null, record: [] });
  });

  it('announces the last day, and an expired CA at its last threshold', () => {
    expect(caExpiryWarningsDue(endIn(0.5), now, [180, 90, 30, 7])).toEqual({ announce: 1, record: [1] });
    expect(caExpiryWarningsDue(endIn(-3), now, [])).toEqual({ announce: 1, record: [1, 7, 30, 90, 180] });
  });
});
