import { CoalescedCounter } from './coalesced-counter';

interface Key {
  row: string;
}

/** A store whose writes stay open until the test releases them; it keeps each row's total. */
function gatedStore() {
  const rows = new Map<string, number>();
  const batches: { fields: Key; count: number }[][] = [];
  const gates: { release: () => void; fail: (error: Error) => void }[] = [];
  const write = (batch: readonly { fields: Key; count: number }[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push([...batch]);
      gates.push({
        release: () =>
          resolve(
            batch.map(({ fields, count }) => {
              rows.set(fields.row, (rows.get(fields.row) ?? 0) + count);
              return rows.get(fields.row)!;
            }),
          ),
        fail: reject,
      });
    });
  return { batches, gates, write };
}

const add = (counter: CoalescedCounter<Key>, row: string) => counter.add(row, { row });

describe('CoalescedCounter', () => {
  it('writes a lone increment at once and answers the new total', async () => {
    const { batches, gates, write } = gatedStore();
    const counter = new CoalescedCounter(write);
    const done = add(counter, 'a');
    expect(batches).toEqual([[{ fields: { row: 'a' }, count: 1 }]]);
    gates[0].release();
    await expect(done).resolves.toBe(1);
  });

  it('sums the increments that arrive during a write into the next single write, per key, each answered its own running count', async () => {
    const { batches, gates, write } = gatedStore();
    const counter = new CoalescedCounter(write);
    const first = add(counter, 'a');
    const later = [add(counter, 'a'), add(counter, 'a'), add(counter, 'b'), add(counter, 'a')];
    let laterSettled = false;
    void Promise.all(later).then(() => (laterSettled = true));
    gates[0].release();
    await expect(first).resolves.toBe(1);
    expect(batches[1]).toEqual([
      { fields: { row: 'a' }, count: 3 },
      { fields: { row: 'b' }, count: 1 },
    ]);
    await Promise.resolve();
    expect(laterSettled).toBe(false);
    gates[1].release();
    await expect(Promise.all(later)).resolves.toEqual([2, 3, 1, 4]);
    expect(batches).toHaveLength(2);
  });

  it('fails the callers of a failed write and keeps writing later increments', async () => {
    const { batches, gates, write } = gatedStore();
    const counter = new CoalescedCounter(write);
    const failed = add(counter, 'a');
    gates[0].fail(new Error('database down'));
    await expect(failed).rejects.toThrow('database down');
    const next = add(counter, 'a');
    expect(batches).toHaveLength(2);
    gates[1].release();
    await expect(next).resolves.toBe(1);
  });
});
