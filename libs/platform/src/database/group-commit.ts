/**
 * Group commit: writes that arrive while a transaction is running are collected and written
 * together in the next one (at most `maxBatch` per transaction, one transaction at a time), so
 * many concurrent callers pay for one BEGIN/COMMIT and one WAL flush instead of one each. Each
 * caller's promise settles when its own item is committed, with the result `writeBatch` gave for
 * it (the result at the item's index; `undefined` when it returns nothing). If a batch fails, its
 * items are written again one by one, so one bad item fails only its own caller. The same shape
 * serves reads that many callers make at once (the agent work poll reads every waiting agent's
 * jobs in one statement).
 */
export class GroupCommit<T, R = void> {
  private queue: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  private flushing = false;

  constructor(
    private readonly writeBatch: (items: T[]) => Promise<R[] | void>,
    private readonly maxBatch = 256,
  ) {}

  write(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const results = await this.writeBatch(batch.map((w) => w.item));
          batch.forEach((w, i) => w.resolve(results?.[i] as R));
        } catch (error) {
          if (batch.length === 1) {
            batch[0].reject(error);
            continue;
          }
          for (const w of batch) {
            try {
              const results = await this.writeBatch([w.item]);
              w.resolve(results?.[0] as R);
            } catch (single) {
              w.reject(single);
            }
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
