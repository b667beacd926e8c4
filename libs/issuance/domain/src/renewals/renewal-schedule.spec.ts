import {
  daysRemaining,
  expiryWarningsDue,
  renewalDue,
  retryDue,
  renewalMaxAttempts,
} from './renewal-schedule';

const DAY = 86_400_000;
const NOW = new Date('2026-06-01T12:00:00Z');
const inDays = (days: number) => new Date(NOW.getTime() + days * DAY);

describe('renewalDue', () => {
  it.each([
    [31, 30, false],
    [30, 30, true],
    [29.99, 30, true],
    [0, 30, true],
    [-5, 30, true],
    [1.0001, 1, false],
    [365, 365, true],
  ])('expiring in %s days with a %s-day window: %s', (days, window, expected) => {
    expect(renewalDue(inDays(days), NOW, window)).toBe(expected);
  });
});

describe('retryDue', () => {
  const policy = { max_retries: 2, retry_interval_seconds: 600 };
  const failedAgo = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);

  it('retries while attempts < max_retries + 1 and the interval has passed', () => {
    expect(retryDue({ attempts: 1, retries: 0, failed_at: failedAgo(600) }, policy, NOW)).toBe(true);
    expect(retryDue({ attempts: 2, retries: 1, failed_at: failedAgo(601) }, policy, NOW)).toBe(true);
  });

  it('does not retry before last failure + interval', () => {
    expect(retryDue({ attempts: 1, retries: 0, failed_at: failedAgo(599) }, policy, NOW)).toBe(false);
  });

  it('does not retry once max_retries + 1 attempts were made', () => {
    expect(retryDue({ attempts: 3, retries: 2, failed_at: failedAgo(10_000) }, policy, NOW)).toBe(false);
    expect(
      retryDue({ attempts: 1, retries: 0, failed_at: failedAgo(10_000) }, { ...policy, max_retries: 0 }, NOW),
    ).toBe(false);
  });

  it('counts a failure before the job ran as an attempt (agent failed without a CSR)', () => {
    expect(retryDue({ attempts: 0, retries: 0, failed_at: failedAgo(10_000) }, policy, NOW)).toBe(true);
    expect(retryDue({ attempts: 0, retries: 1, failed_at: failedAgo(10_000) }, policy, NOW)).toBe(true);
    expect(retryDue({ attempts: 0, retries: 2, failed_at: failedAgo(10_000) }, policy, NOW)).toBe(false);
  });

  it('retries a failure without a timestamp at once', () => {
    expect(retryDue({ attempts: 0, retries: 0, failed_at: null }, policy, NOW)).toBe(true);
  });
});

describe('expiryWarningsDue', () => {
  const thresholds = [30, 14, 7, 0];

  it('sends nothing before the first threshold', () => {
    expect(expiryWarningsDue(inDays(31), NOW, thresholds, [])).toEqual({ announce: null, record: [] });
  });

  it('announces a threshold once it is crossed', () => {
    expect(expiryWarningsDue(inDays(30), NOW, thresholds, [])).toEqual({ announce: 30, record: [30] });
    expect(expiryWarningsDue(inDays(20), NOW, thresholds, [30])).toEqual({ announce: null, record: [] });
    expect(expiryWarningsDue(inDays(14), NOW, thresholds, [30])).toEqual({ announce: 14, record: [14] });
  });

  it('announces only the nearest threshold when several are crossed at once, recording all', () => {
    expect(expiryWarningsDue(inDays(5), NOW, thresholds, [])).toEqual({ announce: 7, record: [7, 14, 30] });
    expect(expiryWarningsDue(inDays(-1), NOW, thresholds, [30])).toEqual({ announce: 0, record: [0, 7, 14] });
  });

  it('does not announce again once the nearest crossed threshold was sent', () => {
    expect(expiryWarningsDue(inDays(5), NOW, [30, 14, 7, 0, 10], [7])).toEqual({
      announce: null,
      record: [10, 14, 30],
    });
  });

  it('ignores repeated thresholds and an empty list', () => {
    expect(expiryWarningsDue(inDays(1), NOW, [7, 7], [])).toEqual({ announce: 7, record: [7] });
    expect(expiryWarningsDue(inDays(1), NOW, [], [])).toEqual({ announce: null, record: [] });
  });
});

describe('daysRemaining', () => {
  it('rounds down, negative once expired', () => {
    expect(daysRemaining(inDays(6.9), NOW)).toBe(6);
    expect(daysRemaining(inDays(-0.5), NOW)).toBe(-1);
  });
});

describe(renewalMaxAttempts.name, () => {
  it("is the first attempt plus the policy's retries, the one rule for single, bulk and scheduled jobs", () => {
    expect(renewalMaxAttempts({ max_retries: 0 })).toBe(1);
    expect(renewalMaxAttempts({ max_retries: 3 })).toBe(4);
    expect(renewalMaxAttempts({ max_retries: 10 })).toBe(11);
  });
});
