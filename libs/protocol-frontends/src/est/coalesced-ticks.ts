export interface CounterTicks {
  profileId: string;
  outcome: string;
  count: number;
}

interface Pending extends CounterTicks {
  waiters: { resolve: () => void; reject: (error: unknown) => void }[];
}

/**
 * Per-profile counter ticks written in batches (ADR 0061): every outcome of a profile ticks the
 * same counter row, so writing each in its own transaction makes every enrollment wait for the
 * previous one's commit on that row. Ticks that arrive while a write is under way are summed and
 * written by the next single statement; each `add` resolves once the write holding its tick has
 * committed, so an answer is never sent before its tick is counted.
 */
export class CoalescedTicks {
  private pending = new Map<string, Pending>();
  private writing = false;

  constructor(private readonly write: (ticks: readonly CounterTicks[]) => Promise<void>) {}

  add(profileId: string, outcome: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const key = `${profileId} ${outcome}`;
      const entry = this.pending.get(key) ?? { profileId, outcome, count: 0, waiters: [] };
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
        await this.write(batch.map(({ profileId, outcome, count }) => ({ profileId, outcome, count })));
        for (const entry of batch) for (const waiter of entry.waiters) waiter.resolve();
      } catch (error) {
        for (const entry of batch) for (const waiter of entry.waiters) waiter.reject(error);
      }
    }
    this.writing = false;
  }
}
