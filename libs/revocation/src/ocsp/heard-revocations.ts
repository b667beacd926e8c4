import { ByteBoundedLru } from './byte-bounded-lru';
import { KnownRevocation } from './cert-status';

/** A revocation heard on the bus, with the event that carried it. */
export interface HeardRevocation extends KnownRevocation {
  eventId: string;
  /** When the table is next asked whether the consumer recorded this event (epoch ms). */
  checkAfter: number;
}

/** What one heard revocation costs beyond its key (the record, its Date, the event id, the map slot). */
const HEARD_OVERHEAD_BYTES = 200;

/**
 * The revocations a replica heard on the bus (every replica hears every one) that the revocations
 * table may not hold yet: one replica's consumer commits them one at a time, and under a bulk
 * revocation it can be far behind. Each is kept until the consumer is seen to have recorded its
 * event (`settle`), so no clock can make a revocation answer `good` again (ADR 0039 amendments).
 *
 * Memory is bounded: past `maxBytes` the oldest go first. When one goes before the consumer was
 * seen to record it, the replica no longer knows every revocation the table may lack, so `lostEvent`
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

  /** Whether the consumer's inbox should be asked about `key`'s event now (its check time passed). */
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
   * Whether the consumer has recorded the event of `key`'s entry (`consumed`: its inbox holds
   * `eventId`), against what was heard. The consumer applies the events in stream order, so once
   * it holds that event the table reflects it and every event before it, whatever the reason (a
   * hold heard after a release is not confirmed by the row of an earlier hold, nor a release by
   * the absence of a hold it was yet to record). Confirmed: the entry goes, and `row` (the table's
   * answer, read after `consumed`) stands. Not yet: the entry stays, is checked again later and is
   * the answer. An entry replaced meanwhile by a newer event stays and is the answer.
   */
  settle(
    key: string,
    eventId: string,
    consumed: boolean,
    row: KnownRevocation | undefined,
    now: number,
  ): KnownRevocation | undefined {
    const entry = this.entries.peek(key);
    if (!entry) return row;
    if (entry.eventId !== eventId) return entry;
    if (consumed) {
      this.entries.delete(key);
      return row;
    }
    entry.checkAfter = now + this.recheckMs;
    return entry;
  }
}
