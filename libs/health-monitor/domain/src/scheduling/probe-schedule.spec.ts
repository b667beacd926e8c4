import {
  CLAIM_LOOKAHEAD_MS,
  CLAIM_STEP_MS,
  claimBatchLimit,
  ClaimedSlot,
  claimHorizon,
  claimSlots,
  delayUntilDue,
  firstDueAt,
  isValidIntervalSeconds,
  nextDueAt,
  probePhaseMs,
} from './probe-schedule';

const at = (iso: string) => new Date(iso);

interface Probe {
  id: string;
  at: number;
  dueAt: number;
}

/**
 * A fake clock over a store of 60 s checks and a monitor claiming from it the way the loop does
 * (batch after batch of at most `batch` until a short one, each claimed check moved on in the
 * same pass). Claiming costs `claimCostMs` per check and, as in the loop, a claimed check is
 * probed once its pass has finished claiming, at its due time or at once when that has passed.
 */
function simulate(options: {
  checks: number;
  createdAt: number;
  untilMs: number;
  stepMs: number;
  lookaheadMs: number;
  batch: number;
  claimCostMs: number;
}): Probe[] {
  const store = Array.from({ length: options.checks }, (_, n) => {
    const id = `check-${n}`;
    return { id, next_check_at: firstDueAt(id, 60, new Date(options.createdAt)), interval_seconds: 60 };
  });
  const probes: Probe[] = [];
  for (let t = options.createdAt; t < options.untilMs; t += options.stepMs) {
    const horizon = claimHorizon(new Date(t), options.lookaheadMs);
    const claimed: ClaimedSlot[] = [];
    for (;;) {
      const batch = store
        .filter((check) => check.next_check_at < horizon)
        .sort((a, b) => a.next_check_at.getTime() - b.next_check_at.getTime())
        .slice(0, options.batch);
      claimSlots(batch, horizon).forEach((slot, i) => {
        batch[i].next_check_at = slot.nextDueAt;
        claimed.push(slot);
      });
      if (batch.length < options.batch) break;
    }
    const claimedAt = t + claimed.length * options.claimCostMs;
    for (const slot of claimed)
      probes.push({
        id: slot.id,
        at: Math.max(claimedAt, slot.dueAt.getTime()),
        dueAt: slot.dueAt.getTime(),
      });
  }
  return probes;
}

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.99) - 1];

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

  it('claims what falls due in the next two seconds, every second, and waits for each due time', () => {
    expect(claimHorizon(at('2026-11-24T12:00:00Z'))).toEqual(at('2026-11-24T12:00:02Z'));
    expect(CLAIM_STEP_MS).toBeLessThan(CLAIM_LOOKAHEAD_MS);
    expect(delayUntilDue(at('2026-11-24T12:00:20Z'), at('2026-11-24T12:00:00Z'))).toBe(20_000);
    expect(delayUntilDue(at('2026-11-24T11:59:00Z'), at('2026-11-24T12:00:00Z'))).toBe(0);
  });

  it('moves a claimed check past the claim horizon, so one pass cannot claim it twice', () => {
    const horizon = at('2026-11-24T12:00:02Z');
    const [late, onTime] = claimSlots(
      [
        { id: 'late', next_check_at: at('2026-11-24T11:59:01Z'), interval_seconds: 60 },
        { id: 'on-time', next_check_at: at('2026-11-24T12:00:01Z'), interval_seconds: 60 },
      ],
      horizon,
    );
    // Late by 59 s: its next slot (12:00:01) is inside the window, so it is skipped, not probed twice.
    expect(late).toEqual({
      id: 'late',
      dueAt: at('2026-11-24T11:59:01Z'),
      nextDueAt: at('2026-11-24T12:01:01Z'),
    });
    expect(onTime.nextDueAt).toEqual(at('2026-11-24T12:01:01Z'));
  });

  // bench/discovery, 02:52 UTC: p99 lag 17.7 s for 10,000 checks. A pass claimed a whole minute
  // (10,000 checks, one UPDATE each: ~18 s on the loaded machine) before its first probe, so every
  // check due in the first 18 s after the tick ran late. Same cost per claimed check below.
  const tenThousand = {
    checks: 10_000,
    createdAt: Date.parse('2026-11-24T12:00:00Z'),
    untilMs: 0,
    claimCostMs: 1.8,
  };
  tenThousand.untilMs = tenThousand.createdAt + 180_000;

  it('reproduces the 18 s lag of claiming a whole minute per 60 s tick (fake clock)', () => {
    const probes = simulate({ ...tenThousand, stepMs: 60_000, lookaheadMs: 60_000, batch: 1000 });
    expect(p99(probes.map((probe) => probe.at - probe.dueAt))).toBeGreaterThan(17_000);
  });

  it('claims every second for the next two: each slot probed once, on its due time (fake clock)', () => {
    const probes = simulate({
      ...tenThousand,
      stepMs: CLAIM_STEP_MS,
      lookaheadMs: CLAIM_LOOKAHEAD_MS,
      batch: 500,
    });
    // Only the first pass, which claims two seconds' worth at once, starts some a little late.
    const late = probes.filter((probe) => probe.at !== probe.dueAt);
    expect(late.every((probe) => probe.dueAt < tenThousand.createdAt + CLAIM_LOOKAHEAD_MS)).toBe(true);
    expect(Math.max(...late.map((probe) => probe.at - probe.dueAt))).toBeLessThan(1000);
    const slots = probes.map((probe) => `${probe.id}@${probe.dueAt}`);
    expect(new Set(slots).size).toBe(slots.length);
    // 3 minutes of 10,000 checks at 60 s, less the slots due in the last pass's unclaimed second.
    expect(probes.length).toBeGreaterThan(29_500);
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

describe('claimBatchLimit', () => {
  const limit = (waiting: number, claimedThisPass: number) =>
    claimBatchLimit({ waiting, claimedThisPass, batch: 500, maxWaiting: 512 });

  it('takes a full batch while far from the bound', () => {
    expect(limit(0, 0)).toBe(500);
  });

  it('takes only what brings waiting plus claimed up to the bound, then nothing', () => {
    expect(limit(0, 500)).toBe(12);
    expect(limit(100, 400)).toBe(12);
    expect(limit(12, 500)).toBe(0);
    expect(limit(600, 0)).toBe(0);
  });
});
