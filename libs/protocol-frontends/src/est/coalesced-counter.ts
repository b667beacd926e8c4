interface Pending<T> {
  fields: T;
  count: number;
  waiters: { resolve: (total: number) => void; reject: (error: unknown) => void }[];
}

/**
 * Counter increments written in batches (ADR 0061): every EST outcome of a profile ticks the same
 * counter row, and every request of a principal the same rate-window row, so writing each in its
 * own transaction makes every request wait for the previous one's commit on that row. Increments
 * of a key that arrive while a write is under way are summed and written by the next single
 * statement; each `add` resolves, once the write holding it has committed, with the row's count
 * up to and including this increment, so a caller never answers before it is counted and a rate
 * limit still sees an exact count across replicas.
 */
export class CoalescedCounter<T> {
  private pending = new Map<string, Pending<T>>();
  private writing = false;

  /** `write` adds each entry's count to its row and returns the rows' new totals, in order. */
  constructor(
    private readonly write: (batch: readonly { fields: T; count: number }[]) => Promise<number[]>,
  ) {}

  add(key: string, fields: T): Promise<number> {
    return new Promise((resolve, reject) => {
      const entry = this.pending.get(key) ?? { fields, count: 0, waiters: [] };
      entry.count += 1;
      entry.waiters.push({ resolve, reject });
      this.pending.set(key, entry);
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.pending.size > 0) {
      const batch = [...this.pending.values()];
      this.pending = new Map();
      try {
        const totals = await this.write(batch.map(({ fields, count }) => ({ fields, count })));
        batch.forEach((entry, i) =>
          entry.waiters.forEach((waiter, j) => waiter.resolve(totals[i] - entry.count + j + 1)),
        );
      } catch (error) {
        for (const entry of batch) for (const waiter of entry.waiters) waiter.reject(error);
      }
    }
    this.writing = false;
  }
}
