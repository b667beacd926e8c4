/** Spec 8: five delivery attempts per notification. */
export const MAX_DELIVERY_ATTEMPTS = 5;

/** Spec 8: the backoff never exceeds one hour. */
export const MAX_BACKOFF_MS = 3_600_000;

const MINUTE_MS = 60_000;

/**
 * The wait after the n-th failed attempt (n = the retry_count the failure leaves behind, so 1 after
 * the first failure): 2^n minutes, capped at one hour (spec 3 and 8).
 */
export function backoffMs(retryCount: number): number {
  if (!Number.isInteger(retryCount) || retryCount < 0)
    throw new RangeError('retryCount must be a whole number');
  // 2^6 minutes already exceeds the cap; stop there so large counts cannot overflow.
  return Math.min(2 ** Math.min(retryCount, 6) * MINUTE_MS, MAX_BACKOFF_MS);
}

/**
 * How long a receiver's Retry-After holds its notifier, in ms: at most the one-hour cap of spec 8,
 * so a receiver cannot silence a notifier for longer, nor send a time no date can hold.
 */
export function retryAfterMs(seconds: number): number {
  if (!Number.isFinite(seconds) || seconds <= 0) return 0;
  return Math.min(seconds * 1000, MAX_BACKOFF_MS);
}
