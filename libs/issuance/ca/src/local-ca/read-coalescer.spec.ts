import { ReadCoalescer } from './read-coalescer';

/** A read function whose calls finish when the test says so. */
function controlledReads() {
  const calls: { key: string; finish: (value: string) => void; fail: (error: Error) => void }[] = [];
  const read = (key: string) =>
    new Promise<string>((resolve, reject) => calls.push({ key, finish: resolve, fail: reject }));
  return { calls, read };
}

describe(ReadCoalescer.name, () => {
  it('answers callers who arrive during a read with the next read, started after they asked', async () => {
    const { calls, read } = controlledReads();
    const reads = new ReadCoalescer(read);
    const first = reads.get('a');
    const later = [reads.get('a'), reads.get('a')];
    expect(calls).toHaveLength(1);
    calls[0].finish('old');
    await expect(first).resolves.toBe('old');
    // The second read starts only once the first is over, and serves both later callers.
    await Promise.resolve();
    expect(calls).toHaveLength(2);
    calls[1].finish('new');
    await expect(Promise.all(later)).resolves.toEqual(['new', 'new']);
  });

  it('reads different keys independently and reads again once idle', async () => {
    const { calls, read } = controlledReads();
    const reads = new ReadCoalescer(read);
    const a = reads.get('a');
    const b = reads.get('b');
    expect(calls.map((c) => c.key)).toEqual(['a', 'b']);
    calls[0].finish('A');
    calls[1].finish('B');
    await expect(Promise.all([a, b])).resolves.toEqual(['A', 'B']);
    await Promise.resolve();
    const again = reads.get('a');
    expect(calls).toHaveLength(3);
    calls[2].finish('A2');
    await expect(again).resolves.toBe('A2');
  });

  it('fails only the callers of the read that failed', async () => {
    const { calls, read } = controlledReads();
    const reads = new ReadCoalescer(read);
    const first = reads.get('a');
    const second = reads.get('a');
    calls[0].fail(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await Promise.resolve();
    calls[1].finish('ok');
    await expect(second).resolves.toBe('ok');
  });

  it('turns a read that throws synchronously into a rejection', async () => {
    const reads = new ReadCoalescer<string, string>(() => {
      throw new Error('bad key');
    });
    await expect(reads.get('a')).rejects.toThrow('bad key');
    await expect(reads.get('a')).rejects.toThrow('bad key');
  });
});
