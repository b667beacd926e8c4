/** The most a poll answer asks a client to wait: an attempt usually ends long before its lease. */
export const MAX_POLL_RETRY_AFTER_SECONDS = 10;

/**
 * A processing challenge's Retry-After (RFC 8555 8.2): whole seconds until `retryAt` (its next
 * attempt's time, or the running attempt's lease), from 1 to 10; 1 when that time is unknown.
 */
export function challengeRetryAfterSeconds(retryAt: Date | null, now: Date): number {
  const seconds = retryAt ? Math.ceil((retryAt.getTime() - now.getTime()) / 1000) : 1;
  return Math.min(MAX_POLL_RETRY_AFTER_SECONDS, Math.max(1, seconds));
}

/**
 * A pending authorization's Retry-After (RFC 8555 7.5.1: "MAY include a Retry-After header field
 * to suggest a polling interval"): the soonest next attempt of its processing challenges, else
 * 1 s, since an answered challenge is validated at once. Clients that default to a long interval
 * without the header (acmetool waits 10 s) poll when something can have changed. A final
 * authorization has none: it will not change.
 */
export function authorizationRetryAfterSeconds(
  status: string,
  challenges: readonly { status: string; retry_at?: Date | null }[],
  now: Date,
): number | null {
  if (status !== 'pending') return null;
  const processing = challenges.filter((c) => c.status === 'processing');
  if (processing.length === 0) return 1;
  return Math.min(...processing.map((c) => challengeRetryAfterSeconds(c.retry_at ?? null, now)));
}
