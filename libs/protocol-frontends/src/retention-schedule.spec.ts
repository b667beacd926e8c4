import { RetentionSchedule } from './retention-schedule';

describe('RetentionSchedule', () => {
  const t0 = new Date('2026-11-30T00:00:00Z');
  const later = (ms: number) => new Date(t0.getTime() + ms);
  const HOUR = 3600_000;

  function schedule(days: number, passes: boolean[]) {
    const cutoffs: Date[] = [];
    const reported: Date[] = [];
    const retention = new RetentionSchedule(
      { days, intervalMs: HOUR },
      async (cutoff) => {
        cutoffs.push(cutoff);
        return { filledABatch: passes.shift() ?? false };
      },
      (_pass, cutoff) => reported.push(cutoff),
    );
    return { retention, cutoffs, reported };
  }

  it('runs at the first sweep, then not before the interval has passed', async () => {
    const { retention, cutoffs } = schedule(90, [false, false]);
    await retention.runWhenDue(t0);
    await retention.runWhenDue(later(HOUR - 1));
    expect(cutoffs).toEqual([new Date('2026-09-01T00:00:00Z')]);
    await retention.runWhenDue(later(HOUR));
    expect(cutoffs).toHaveLength(2);
  });

  it('runs again at the next sweep while a pass fills its batch', async () => {
    const { retention, cutoffs } = schedule(90, [true, false]);
    await retention.runWhenDue(t0);
    await retention.runWhenDue(later(10_000));
    await retention.runWhenDue(later(20_000));
    expect(cutoffs).toHaveLength(2);
  });

  it('never runs when the retention is 0 days', async () => {
    const { retention, cutoffs, reported } = schedule(0, []);
    await retention.runWhenDue(t0);
    await retention.runWhenDue(later(48 * HOUR));
    expect(cutoffs).toEqual([]);
    expect(reported).toEqual([]);
  });

  it('reports each pass with its cutoff', async () => {
    const { retention, reported } = schedule(8, []);
    await retention.runWhenDue(t0);
    expect(reported).toEqual([new Date('2026-11-22T00:00:00Z')]);
  });

  it('tries again at the next sweep after a pass that failed', async () => {
    let calls = 0;
    const retention = new RetentionSchedule(
      { days: 90, intervalMs: HOUR },
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('database away');
        return { filledABatch: false };
      },
      () => undefined,
    );
    await expect(retention.runWhenDue(t0)).rejects.toThrow('database away');
    await retention.runWhenDue(later(10_000));
    expect(calls).toBe(2);
  });
});
