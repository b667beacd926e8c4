/**
 * Sliding-window rate limit arithmetic (spec 5.7: 5 break-glass logins per minute per source
 * IP). Given the times of the earlier attempts, an attempt at `now` is allowed when fewer than
 * `limit` of them fall inside the window (now - window, now]. When refused, `retryAfterSeconds`
 * is when enough of those attempts will have left the window for one more to fit.
 */
export type WindowDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export function decideAttempt(
  attemptTimesMs: readonly number[],
  nowMs: number,
  limit: number,
  windowMs: number,
): WindowDecision {
  const inWindow = attemptTimesMs.filter((t) => t > nowMs - windowMs && t <= nowMs).sort((a, b) => a - b);
  if (inWindow.length < limit) return { allowed: true };
  // The attempt that has to leave the window before one more fits.
  const blocking = inWindow[inWindow.length - limit];
  const waitMs = blocking + windowMs - nowMs;
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}
