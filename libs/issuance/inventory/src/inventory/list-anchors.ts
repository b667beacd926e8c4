import type { CertificateListFilter } from './certificate-list.query';

/**
 * Deep OFFSET pages without walking the skipped rows (ADR 0034). For one filter, the anchors are
 * the ids at positions K-1, 2K-1, ... of the list in id order (K = ANCHOR_SPACING); page N then
 * starts after the nearest anchor at or before its offset and skips fewer than K index entries.
 * This module is pure: the seek arithmetic, the cache key and a cache that coalesces concurrent
 * builds and expires entries (the clock is passed in).
 */
/**
 * 250: a deep page skips at most 249 index entries past its anchor (at 1,000 the skip was up to a
 * third of a deep page's Postgres time); a million rows make 4,000 anchors per filter.
 */
export const ANCHOR_SPACING = 250;
/** How long anchors serve without a rebuild; a deep page may be this stale at most (ADR 0034). */
export const ANCHOR_TTL_MS = 10_000;
/** Distinct filters kept at once; the oldest entry goes first. */
export const ANCHOR_CACHE_ENTRIES = 256;

export interface Seek {
  /** Start after this id (none: from the start of the list). */
  afterId?: string;
  /** Rows to skip from there. */
  offset: number;
}

/**
 * Where a page at `offset` starts, given anchors[j] = id at position (j+1)*spacing - 1. Uses the
 * last anchor before the offset's row, so the remaining skip is below `spacing`; past the last
 * anchor, the last one (the list is shorter than the offset: the page comes out short or empty,
 * as with OFFSET).
 */
export function seekFromAnchors(offset: number, anchors: readonly string[], spacing = ANCHOR_SPACING): Seek {
  const blocks = Math.min(Math.floor(offset / spacing), anchors.length);
  if (blocks === 0) return { offset };
  return { afterId: anchors[blocks - 1], offset: offset - blocks * spacing };
}

/** Whether a page at `offset` is deep enough for the anchors to pay (shallow pages use OFFSET). */
export const usesAnchors = (offset: number, spacing = ANCHOR_SPACING) => offset >= spacing;

/** One cache key per filter, whatever the order its fields were given in. */
export function anchorKey(filter: CertificateListFilter): string {
  return JSON.stringify([
    filter.status,
    filter.environment,
    filter.owner_id,
    filter.team_id,
    filter.issuer_id,
    filter.ca_tree,
  ]);
}

interface Entry {
  anchors: Promise<readonly string[]>;
  /** The list's exact total when the build started: a different total now means it changed. */
  total: number;
  builtAt: number;
  /** The anchors once built: served while a replacement for an expired entry is being built. */
  built?: readonly string[];
}

/**
 * Anchors per filter. An entry serves while it is younger than the TTL, the list's total is still
 * the one it was built for, and no write of this replica happened since (invalidate()). Requests
 * that find no entry, or one whose total moved, wait for a build (shared by concurrent callers).
 * An entry that only aged past the TTL keeps serving while its replacement is built in the
 * background, so a refresh does not stall every deep page; it is replaced once that build is
 * done. A failed build is not kept.
 */
export class ListAnchorCache {
  private readonly entries = new Map<string, Entry>();
  /** Expired entries whose replacement is being built (one build each). */
  private readonly refreshing = new WeakSet<Entry>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = ANCHOR_TTL_MS,
    private readonly maxEntries = ANCHOR_CACHE_ENTRIES,
  ) {}

  anchors(key: string, total: number, build: () => Promise<readonly string[]>): Promise<readonly string[]> {
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry && entry.total === total) {
      if (now - entry.builtAt < this.ttlMs) return entry.anchors;
      if (entry.built) {
        this.refresh(key, entry, total, build, now);
        return entry.anchors;
      }
    }
    return this.start(key, total, build, now).anchors;
  }

  /**
   * The anchors built for `key`, if any, whatever their total and age, without building or
   * refreshing anything: a guess to read a deep page with while its total is counted in the same
   * statement. The guess holds when anchors(key, thatTotal) then returns this same array.
   */
  peek(key: string): readonly string[] | undefined {
    return this.entries.get(key)?.built;
  }

  private start(key: string, total: number, build: () => Promise<readonly string[]>, now: number): Entry {
    const fresh: Entry = { anchors: build(), total, builtAt: now };
    this.store(key, fresh);
    fresh.anchors.then(
      (anchors) => (fresh.built = anchors),
      () => {
        if (this.entries.get(key) === fresh) this.entries.delete(key);
      },
    );
    return fresh;
  }

  /** Builds the replacement of an expired entry once; the old one serves until it is ready. */
  private refresh(
    key: string,
    stale: Entry,
    total: number,
    build: () => Promise<readonly string[]>,
    now: number,
  ): void {
    if (this.refreshing.has(stale)) return;
    this.refreshing.add(stale);
    build().then(
      (anchors) => {
        // Stored only if nothing replaced or dropped the stale entry meanwhile (a write, a new total).
        if (this.entries.get(key) !== stale) return;
        this.store(key, { anchors: Promise.resolve(anchors), built: anchors, total, builtAt: now });
      },
      () => this.refreshing.delete(stale),
    );
  }

  private store(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.maxEntries)
      this.entries.delete(this.entries.keys().next().value as string);
  }

  /**
   * This replica wrote certificates: every filter's anchors may have moved. A build in flight is
   * dropped too (its snapshot may predate the write); callers already waiting on it still get it.
   */
  invalidate(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
