import { CRL_VALIDITY_MS } from '@certlane/pki';

/** How long a CRL is valid (spec section 8: 24 hours). */
export const CRL_VALIDITY = CRL_VALIDITY_MS;
/** A revocation is folded into the CRL this long after its commit, with whatever else came meanwhile. */
export const CRL_DEBOUNCE_MS = 100;

/** By default a CRL is rebuilt half-way through its validity (SERVICE_CRL_REFRESH_BEFORE). */
export const CRL_REFRESH_BEFORE_MS = CRL_VALIDITY / 2;

/**
 * When a CRL is rebuilt although nothing was revoked: `refreshBeforeMs` before its nextUpdate
 * (by default half-way, so a relying party fetching it just before nextUpdate finds a newer one,
 * and a failed rebuild has twelve hours of retries before the published CRL expires). The sweep's
 * query (CrlRepository.due) applies the same rule.
 */
export function crlRefreshAt(
  thisUpdate: Date,
  nextUpdate: Date,
  refreshBeforeMs = CRL_REFRESH_BEFORE_MS,
): Date {
  return new Date(Math.max(thisUpdate.getTime(), nextUpdate.getTime() - refreshBeforeMs));
}

/**
 * The CRL number after every number in `previous` (1 for the first CRL): strictly increasing (RFC
 * 5280 5.2.3). The build passes the issuer's last reserved number and the highest stored for any
 * of its CAs (the row from before per-CA CRLs included): one sequence per issuer, so a new CA with
 * the name of an earlier one never restarts at 1 for that CRL issuer name (ADR 0023 amendment).
 */
export function nextCrlNumber(...previous: (bigint | undefined)[]): bigint {
  let highest = 0n;
  for (const n of previous) if (n !== undefined && n > highest) highest = n;
  return highest + 1n;
}

/** thisUpdate (now, whole seconds: DER times carry no fraction) and nextUpdate (+24 h) of a CRL. */
export function crlTimes(now: number): { thisUpdate: Date; nextUpdate: Date } {
  const thisUpdate = new Date(Math.floor(now / 1000) * 1000);
  return { thisUpdate, nextUpdate: new Date(thisUpdate.getTime() + CRL_VALIDITY) };
}

/** Whether a stored CRL can still be served at `now` (before its nextUpdate). */
export function crlIsValid(state: { next_update: Date } | undefined, now: number): boolean {
  return state !== undefined && state.next_update.getTime() > now;
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
export const realTimers: Timers = {
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface KeyState {
  timer?: unknown;
  running?: Promise<void>;
  again: boolean;
}

/**
 * Runs `work(key)` at most `delayMs` after it is requested, coalescing the requests that arrive
 * meanwhile into one run; a request during a run schedules exactly one more run after it (so
 * nothing requested is missed, and a burst of revocations costs two builds, not one per event).
 * Unlike a resetting debounce, a steady stream of requests cannot postpone the run forever.
 */
export class KeyedDebouncer<K> {
  private readonly states = new Map<K, KeyState>();
  private closed = false;

  constructor(
    private readonly work: (key: K) => Promise<void>,
    private readonly delayMs: number,
    private readonly onError: (key: K, error: unknown) => void,
    private readonly timers: Timers = realTimers,
  ) {}

  request(key: K): void {
    if (this.closed) return;
    const state = this.states.get(key) ?? { again: false };
    this.states.set(key, state);
    if (state.running) {
      state.again = true;
      return;
    }
    if (state.timer !== undefined) return;
    state.timer = this.timers.setTimeout(() => void this.fire(key, state), this.delayMs);
  }

  /** Keys with a run scheduled or in progress. */
  pending(): K[] {
    return [...this.states.keys()];
  }

  /** Resolves when no run is scheduled or in progress (tests, shutdown). */
  async idle(): Promise<void> {
    for (const state of this.states.values()) await state.running;
  }

  close(): void {
    this.closed = true;
    for (const state of this.states.values()) {
      if (state.timer !== undefined) this.timers.clearTimeout(state.timer);
      state.timer = undefined;
    }
  }

  private async fire(key: K, state: KeyState): Promise<void> {
    state.timer = undefined;
    const running = (async () => {
      try {
        await this.work(key);
      } catch (error) {
        this.onError(key, error);
      }
    })();
    state.running = running;
    await running;
    state.running = undefined;
    if (state.again && !this.closed) {
      state.again = false;
      state.timer = this.timers.setTimeout(() => void this.fire(key, state), this.delayMs);
    } else {
      this.states.delete(key);
    }
  }
}
