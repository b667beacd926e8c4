/**
 * A map bounded by the bytes its entries are said to take: whoever stores an entry states its
 * size, and the least recently used entries (stored or read) go first once the total would exceed
 * `maxBytes`. `onEvict` hears of each entry evicted (not of those deleted or replaced).
 */
export class ByteBoundedLru<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private total = 0;

  constructor(
    readonly maxBytes: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The sum of the stored entries' stated sizes (never above maxBytes). */
  get bytes(): number {
    return this.total;
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** The value, leaving the order alone. */
  peek(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Stores (or replaces) an entry as the most recently used; false when it alone exceeds the bound. */
  set(key: K, value: V, bytes: number): boolean {
    this.delete(key);
    if (bytes > this.maxBytes) return false;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    while (this.total > this.maxBytes) {
      const [oldest, entry] = this.entries.entries().next().value as [K, { value: V; bytes: number }];
      this.entries.delete(oldest);
      this.total -= entry.bytes;
      this.onEvict?.(oldest, entry.value);
    }
    return true;
  }

  delete(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.total -= entry.bytes;
    return entry.value;
  }

  /** Every entry, least recently used first. */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    for (const [key, entry] of this.entries) yield [key, entry.value];
  }
}
