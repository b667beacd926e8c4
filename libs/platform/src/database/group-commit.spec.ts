import { GroupCommit } from './group-commit';

describe(GroupCommit.name, () => {
  it('writes the items that arrive during a transaction together in the next one', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    let first = true;
    const writer = new GroupCommit<number>(async (items) => {
      batches.push(items);
      if (first) {
        first = false;
        await new Promise<void>((resolve) => (release = resolve));
      }
    });
    const one = writer.write(1);
    const rest = [2, 3, 4].map((n) => writer.write(n));
    release();
    await Promise.all([one, ...rest]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('caps a batch and keeps order', async () => {
    const batches: number[][] = [];
    const writer = new GroupCommit<number>(async (items) => {
      batches.push(items);
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => writer.write(n)));
    expect(batches.flat()).toEqual([1, 2, 3, 4, 5]);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(2);
  });

  it('retries a failed batch item by item: only the bad item fails', async () => {
    const written: number[] = [];
    let block: Promise<void> | undefined = new Promise<void>((resolve) => setTimeout(resolve, 10));
    const writer = new GroupCommit<number>(async (items) => {
      if (block) {
        const wait = block;
        block = undefined;
        await wait;
      }
      if (items.includes(13)) throw new Error(`cannot write ${items.join(',')}`);
      written.push(...items);
    });
    const first = writer.write(1);
    const results = await Promise.allSettled([first, writer.write(12), writer.write(13), writer.write(14)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason.message).toBe('cannot write 13');
    expect(written).toEqual([1, 12, 14]);
    // And it keeps working afterwards.
    await writer.write(15);
    expect(written).toEqual([1, 12, 14, 15]);
  });
});

describe('GroupCommit results', () => {
  it("settles each caller with its own item's result, also after a failed batch is split", async () => {
    const commit = new GroupCommit<number, string>(async (items) => {
      if (items.length > 1 && items.includes(3)) throw new Error('batch refused');
      if (items.length === 1 && items[0] === 3) throw new Error('three is bad');
      return items.map((n) => `row-${n}`);
    });
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map((n) => commit.write(n)));
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([
      'row-1',
      'row-2',
      'three is bad',
      'row-4',
    ]);
  });
});
