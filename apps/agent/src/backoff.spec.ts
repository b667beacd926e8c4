import { backoffDelay, jittered, retryDelays } from './backoff';

describe('jittered', () => {
  it('spreads an interval over +-20%', () => {
    expect(jittered(30_000, () => 0)).toBe(24_000);
    expect(jittered(30_000, () => 0.5)).toBe(30_000);
    expect(jittered(30_000, () => 0.999999)).toBe(36_000);
    expect(jittered(60_000, () => 0.25, 0.1)).toBe(57_000);
  });
});

describe('backoffDelay', () => {
  const top = () => 0.999999;
  const bottom = () => 0;
  it('doubles per consecutive failure from the base, within the upper half of the ceiling', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, 5_000, 300_000, top))).toEqual([
      5_000, 10_000, 20_000, 40_000,
    ]);
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, 5_000, 300_000, bottom))).toEqual([
      2_500, 5_000, 10_000, 20_000,
    ]);
  });

  it('never exceeds the cap, however many failures (no overflow)', () => {
    for (const n of [7, 8, 20, 1000, Number.MAX_SAFE_INTEGER]) {
      const delay = backoffDelay(n, 5_000, 300_000, top);
      expect(delay).toBeLessThanOrEqual(300_000);
      expect(delay).toBeGreaterThanOrEqual(299_000);
    }
  });

  it('falls back to the jittered interval without failures', () => {
    expect(backoffDelay(0, 30_000, 300_000, () => 0.5)).toBe(30_000);
  });
});

describe('retryDelays', () => {
  it('gives one wait per retry, doubling from the base within the upper half, capped', () => {
    expect(retryDelays(3, 1_000, 10_000, () => 0.999999)).toEqual([1_000, 2_000, 4_000]);
    expect(retryDelays(3, 1_000, 10_000, () => 0)).toEqual([500, 1_000, 2_000]);
    expect(retryDelays(6, 1_000, 3_000, () => 0.999999)).toEqual([1_000, 2_000, 3_000, 3_000, 3_000, 3_000]);
  });

  it('gives no wait without retries', () => {
    expect(retryDelays(0, 1_000, 10_000, Math.random)).toEqual([]);
    expect(retryDelays(-1, 1_000, 10_000, Math.random)).toEqual([]);
  });
});
