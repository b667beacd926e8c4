import { NoncePool, NonceStore } from './nonce.store';

/** A store that counts its batches; the pool's rules need no database. */
function countingStore() {
  let batches = 0;
  let next = 0;
  const store = {
    issueMany: async (count: number) => {
      batches++;
      return Array.from({ length: count }, () => `n${next++}`);
    },
  } as unknown as NonceStore;
  return { store, batches: () => batches };
}

describe('NoncePool', () => {
  it('answers a batch of requests with one statement, every nonce once', async () => {
    const { store, batches } = countingStore();
    const pool = new NoncePool(store, 8);
    const issued = await Promise.all(Array.from({ length: 8 }, () => pool.issue()));
    expect(new Set(issued).size).toBe(8);
    expect(batches()).toBe(1);
    await pool.issue();
    expect(batches()).toBe(2);
  });

  it('concurrent requests on an empty pool share one refill', async () => {
    const { store, batches } = countingStore();
    const pool = new NoncePool(store, 4);
    const issued = await Promise.all(Array.from({ length: 4 }, () => pool.issue()));
    expect(new Set(issued).size).toBe(4);
    expect(batches()).toBe(1);
  });

  it('never hands out a nonce past its usable lifetime; it takes a fresh batch instead', async () => {
    const { store, batches } = countingStore();
    let now = 0;
    const pool = new NoncePool(store, 4, 1_000, () => now);
    const first = await pool.issue();
    now = 1_000;
    const second = await pool.issue();
    expect(batches()).toBe(2);
    expect(['n0', 'n1', 'n2', 'n3']).toContain(first);
    expect(['n4', 'n5', 'n6', 'n7']).toContain(second);
  });
});
