import { ByteBoundedLru } from './byte-bounded-lru';
import { KnownRevocation } from './cert-status';

/** A revocation heard on the bus, with the event that carried it. */
export interface HeardRevocation extends KnownRevocation {
  eventId: string;
  /** When the table is next asked whether it holds this revocation (epoch ms). */
  checkAfter: number;
}

/** What one heard revocation costs beyond its key (the record, its Date, the event id, the map slot). */
const HEARD_OVERHEAD_BYTES = 200;

/**
 * The revocations a replica heard on the bus (every replica hears every one) that the revocations
 * table may not hold yet: one replica's consumer commits them one at a time, and under a bulk
 * revocation it can be far behind. Each is kept until the table is seen to hold it (`settle`), so
 * no clock can make a revocation answer `good` again (ADR 0039 amendment).
 *
 * Memory is bounded: past `maxBytes` the oldest go first. When one goes before the table was seen
 * to hold it, the replica no longer knows every revocation the table may lack, so `lostEvent`
 * names the newest event that went so: until the consumer has recorded it (and, as it consumes in
 * order, every event before it), a serial the table does not list must not be answered `good`.
 */
export class HeardRevocations {
  private readonly entries: ByteBoundedLru<string, HeardRevocation>;
  private lost?: string;

  constructor(
    maxBytes: number,
    private readonly recheckMs: number,
  ) {
    this.entries = new ByteBoundedLru(maxBytes, (_key, gone) => {
      this.lost = gone.eventId;
    });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The newest event whose revocation this replica dropped before the table held it, if any. */
  get lostEvent(): string | undefined {
    return this.lost;
  }

  /** The consumer has recorded `lostEvent`: the table holds everything this replica dropped. */
  caughtUp(eventId: string): void {
    if (this.lost === eventId) this.lost = undefined;
  }

  heard(key: string, revocation: KnownRevocation, eventId: string, now: number): void {
    const entry: HeardRevocation = { ...revocation, eventId, checkAfter: now + this.recheckMs };
    this.entries.set(key, entry, HEARD_OVERHEAD_BYTES + key.length + eventId.length);
  }

  get(key: string): HeardRevocation | undefined {
    return this.entries.peek(key);
  }

  /** Whether the table should be asked about `key` now (its check time passed). */
  due(key: string, now: number): boolean {
    const entry = this.entries.peek(key);
    return entry !== undefined && entry.checkAfter <= now;
  }

  /** The keys whose check time passed, oldest first, at most `limit`. */
  dueKeys(now: number, limit: number): string[] {
    const keys: string[] = [];
    for (const [key, entry] of this.entries) {
      if (keys.length >= limit) break;
      if (entry.checkAfter <= now) keys.push(key);
    }
    return keys;
  }

  /**
   * What the table says about `key` (its row, or undefined when it has none), against what was
   * heard: the table confirms a revocation by holding a row with its reason (a final reason
   * replaces a hold there only once the consumer got to it), and a released hold (removeFromCRL)
   * by holding no hold. Confirmed: the heard entry goes and the table's answer stands. Not yet: the
   * heard entry stays, is checked again later and is the answer.
   */
  settle(key: string, row: KnownRevocation | undefined, now: number): KnownRevocation | undefined {
    const entry = this.entries.peek(key);
    if (!entry) return row;
    const confirmed =
      entry.reason === 'removeFromCRL' ? row?.reason !== 'certificateHold' : row?.reason === entry.reason;
    if (confirmed) {
      this.entries.delete(key);
      return row;
    }
    entry.checkAfter = now + this.recheckMs;
    return entry;
  }
}
