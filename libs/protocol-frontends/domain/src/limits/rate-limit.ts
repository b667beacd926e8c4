import { AcmeProblem } from '../problems/acme-problem';

/** A sliding-window limit: at most `limit` events per `windowMs`. */
export interface RateLimit {
  limit: number;
  windowMs: number;
}

/**
 * Whether one more event fits (RFC 8555 6.6: otherwise `rateLimited` with Retry-After). `recent`
 * are the times of the events inside the window, oldest first; the retry time is when the oldest
 * of them leaves the window.
 */
export function checkRateLimit(
  what: string,
  rule: RateLimit,
  recent: readonly Date[],
  now: Date,
): { ok: true } | { ok: false; problem: AcmeProblem; retryAfterSeconds: number } {
  const windowStart = now.getTime() - rule.windowMs;
  const inWindow = recent.filter((d) => d.getTime() > windowStart);
  if (inWindow.length < rule.limit) return { ok: true };
  return rateLimitRefusal(what, rule, inWindow[inWindow.length - rule.limit], now);
}

/**
 * The refusal of a full window: `limitThNewest` is the event whose leaving the window frees a
 * slot (the limit-th newest), so the store need not read every event of a large limit.
 */
export function rateLimitRefusal(
  what: string,
  rule: RateLimit,
  limitThNewest: Date,
  now: Date,
): { ok: false; problem: AcmeProblem; retryAfterSeconds: number } {
  const oldest = limitThNewest;
  const retryAfterSeconds = Math.max(1, Math.ceil((oldest.getTime() + rule.windowMs - now.getTime()) / 1000));
  return {
    ok: false,
    retryAfterSeconds,
    problem: new AcmeProblem(
      'rateLimited',
      `too many ${what}: at most ${rule.limit} per ${Math.round(rule.windowMs / 60_000)} minutes; retry after ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    ),
  };
}
