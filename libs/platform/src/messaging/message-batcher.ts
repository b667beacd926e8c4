/**
 * Collects items pushed one by one into batches: `next()` waits for at least one item and then
 * takes everything waiting, up to `maxBatch`, without waiting for more (a quiet stream is handled
 * at once, a busy one in full batches). Resolves undefined once ended and drained.
 */
export class MessageBatcher<T> {
  private readonly waiting: T[] = [];
  private ended = false;
  private wake?: () => void;

  constructor(private readonly maxBatch: number) {
    if (!Number.isInteger(maxBatch) || maxBatch < 1)
      throw new RangeError('maxBatch must be a positive integer');
  }

  push(item: T): void {
    this.waiting.push(item);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async next(): Promise<T[] | undefined> {
    while (this.waiting.length === 0) {
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    return this.waiting.splice(0, this.maxBatch);
  }
}
