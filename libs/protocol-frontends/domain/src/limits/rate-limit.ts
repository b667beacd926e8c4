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
  const oldest = inWindow[inWindow.length - rule.limit];
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
