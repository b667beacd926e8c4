/**
 * Group commit: writes that arrive while a transaction is running are collected and written
 * together in the next one (at most `maxBatch` per transaction, one transaction at a time), so
 * many concurrent callers pay for one BEGIN/COMMIT and one WAL flush instead of one each. Each
 * caller's promise settles when its own item is committed. If a batch fails, its items are
 * written again one by one, so one bad item fails only its own caller.
 */
export class GroupCommit<T> {
  private queue: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private flushing = false;

  constructor(
    private readonly writeBatch: (items: T[]) => Promise<void>,
    private readonly maxBatch = 256,
  ) {}

  write(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
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
          await this.writeBatch(batch.map((w) => w.item));
          for (const w of batch) w.resolve();
        } catch (error) {
          if (batch.length === 1) {
            batch[0].reject(error);
            continue;
          }
          for (const w of batch) {
            try {
              await this.writeBatch([w.item]);
              w.resolve();
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
