import { CoalescedTicks, CounterTicks } from './coalesced-ticks';

/** A write that stays open until the test releases it. */
function gatedWrites() {
  const batches: CounterTicks[][] = [];
  const gates: { release: () => void; fail: (error: Error) => void }[] = [];
  const write = (ticks: readonly CounterTicks[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push([...ticks]);
      gates.push({ release: resolve, fail: reject });
    });
  return { batches, gates, write };
}

describe('CoalescedTicks', () => {
  it('writes a lone tick at once', async () => {
    const { batches, gates, write } = gatedWrites();
    const ticks = new CoalescedTicks(write);
    const done = ticks.add('p1', 'est_simple_enroll_success');
    expect(batches).toEqual([[{ profileId: 'p1', outcome: 'est_simple_enroll_success', count: 1 }]]);
    gates[0].release();
    await expect(done).resolves.toBeUndefined();
  });

  it('sums the ticks that arrive during a write into the next single write, per counter', async () => {
    const { batches, gates, write } = gatedWrites();
    const ticks = new CoalescedTicks(write);
    const first = ticks.add('p1', 'est_simple_enroll_success');
    const later = [
      ticks.add('p1', 'est_simple_enroll_success'),
      ticks.add('p1', 'est_simple_enroll_success'),
      ticks.add('p1', 'est_rate_limited'),
      ticks.add('p2', 'est_simple_enroll_success'),
    ];
    let laterSettled = false;
    void Promise.all(later).then(() => (laterSettled = true));
    gates[0].release();
    await first;
    expect(batches[1]).toEqual([
      { profileId: 'p1', outcome: 'est_simple_enroll_success', count: 2 },
      { profileId: 'p1', outcome: 'est_rate_limited', count: 1 },
      { profileId: 'p2', outcome: 'est_simple_enroll_success', count: 1 },
    ]);
    await Promise.resolve();
    expect(laterSettled).toBe(false);
    gates[1].release();
    await Promise.all(later);
    expect(batches).toHaveLength(2);
  });

  it('fails the callers of a failed write and keeps writing later ticks', async () => {
    const { batches, gates, write } = gatedWrites();
    const ticks = new CoalescedTicks(write);
    const failed = ticks.add('p1', 'est_simple_enroll_success');
    gates[0].fail(new Error('database down'));
    await expect(failed).rejects.toThrow('database down');
    const next = ticks.add('p1', 'est_simple_enroll_success');
    expect(batches).toHaveLength(2);
    gates[1].release();
    await expect(next).resolves.toBeUndefined();
  });
});
