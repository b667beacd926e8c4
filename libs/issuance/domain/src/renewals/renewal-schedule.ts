const DAY_MS = 86_400_000;

/** Inside its renewal window: expires_at - renewal_window_days <= now (ADR 0028). */
export function renewalDue(expiresAt: Date, now: Date, windowDays: number): boolean {
  return expiresAt.getTime() - windowDays * DAY_MS <= now.getTime();
}

/**
 * How often an issuance or renewal job may be tried: the first attempt and the renewal policy's
 * `max_retries`. The one rule for every such job, created singly, in bulk or by the renewal loop.
 */
export function renewalMaxAttempts(policy: { max_retries: number }): number {
  return policy.max_retries + 1;
}

/**
 * A failed renewal job is tried again while it has attempts left (renewalMaxAttempts) and the
 * retry interval has passed since its last failure. Every failure counts as an attempt, also one
 * that came before the job ever ran (an agent that failed without sending a CSR): attempts made
 * = max(attempts, retries + 1), where `retries` counts the loop's earlier retries of the job.
 */
export function retryDue(
  job: { attempts: number; retries: number; failed_at: Date | null },
  policy: { max_retries: number; retry_interval_seconds: number },
  now: Date,
): boolean {
  if (Math.max(job.attempts, job.retries + 1) >= renewalMaxAttempts(policy)) return false;
  if (!job.failed_at) return true;
  return job.failed_at.getTime() + policy.retry_interval_seconds * 1000 <= now.getTime();
}

/**
 * The alert thresholds (days before expiry) a certificate has crossed and not yet been warned
 * about. Only the nearest crossed threshold is announced (a certificate first seen 5 days before
 * expiry gets one "7 days" warning, not three); all crossed ones are recorded as sent.
 */
export function expiryWarningsDue(
  expiresAt: Date,
  now: Date,
  thresholdsDays: readonly number[],
  alreadySent: readonly number[],
): { announce: number | null; record: number[] } {
  const crossed = [...new Set(thresholdsDays)]
    .filter((days) => expiresAt.getTime() - days * DAY_MS <= now.getTime())
    .sort((a, b) => a - b);
  const record = crossed.filter((days) => !alreadySent.includes(days));
  if (record.length === 0) return { announce: null, record: [] };
  return { announce: record[0] === crossed[0] ? crossed[0] : null, record };
}

/** Whole days left until expiry, rounded down (negative once expired). */
export function daysRemaining(expiresAt: Date, now: Date): number {
  return Math.floor((expiresAt.getTime() - now.getTime()) / DAY_MS);
}
