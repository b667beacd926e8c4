import {
  claimHorizon,
  delayUntilDue,
  firstDueAt,
  isValidIntervalSeconds,
  nextDueAt,
  probePhaseMs,
} from './probe-schedule';

const at = (iso: string) => new Date(iso);

describe('probe scheduling', () => {
  it('spreads 1,000 checks over the interval: every 10 s bucket of a 300 s interval gets some', () => {
    const buckets = new Array<number>(30).fill(0);
    for (let i = 0; i < 1000; i++) buckets[Math.floor(probePhaseMs(`check-${i}`, 300) / 10_000)]++;
    expect(Math.min(...buckets)).toBeGreaterThan(10);
    expect(Math.max(...buckets)).toBeLessThan(70);
  });

  it('gives the same check the same phase every time', () => {
    expect(probePhaseMs('a', 60)).toBe(probePhaseMs('a', 60));
  });

  it('puts the first due time within one interval from now, at the phase', () => {
    const now = at('2026-11-24T12:00:30Z');
    for (const id of ['a', 'b', 'c', 'd']) {
      const due = firstDueAt(id, 60, now).getTime();
      expect(due).toBeGreaterThanOrEqual(now.getTime());
      expect(due).toBeLessThan(now.getTime() + 60_000);
      expect(due % 60_000).toBe(probePhaseMs(id, 60));
    }
  });

  it('schedules the next probe one interval after the previous due time, not after it ran', () => {
    expect(nextDueAt(at('2026-11-24T12:00:00Z'), 60, at('2026-11-24T12:00:03Z'))).toEqual(
      at('2026-11-24T12:01:00Z'),
    );
  });

  it('skips missed slots after an outage instead of probing in a burst, keeping the phase', () => {
    expect(nextDueAt(at('2026-11-24T12:00:07Z'), 60, at('2026-11-24T12:10:30Z'))).toEqual(
      at('2026-11-24T12:11:07Z'),
    );
    expect(nextDueAt(at('2026-11-24T12:00:07Z'), 60, at('2026-11-24T12:01:07Z'))).toEqual(
      at('2026-11-24T12:02:07Z'),
    );
  });

  it('claims what falls due before the next tick and waits for each due time', () => {
    expect(claimHorizon(at('2026-11-24T12:00:00Z'))).toEqual(at('2026-11-24T12:01:00Z'));
    expect(delayUntilDue(at('2026-11-24T12:00:20Z'), at('2026-11-24T12:00:00Z'))).toBe(20_000);
    expect(delayUntilDue(at('2026-11-24T11:59:00Z'), at('2026-11-24T12:00:00Z'))).toBe(0);
  });

  it('accepts intervals from 60 s to one day in whole seconds', () => {
    expect([59, 60, 86_400, 86_401, 90.5].map(isValidIntervalSeconds)).toEqual([
      false,
      true,
      true,
      false,
      false,
    ]);
  });
});
