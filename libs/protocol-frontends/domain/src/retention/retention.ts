import { DEFAULT_ACME_LIFETIMES } from '../expiry/expiry';

const DAY_MS = 24 * 3600_000;

/**
 * The shortest retention an operator may set, in days: an order's whole life (it expires pending
 * or ready after 7 days) and a day more, so a client still sees how an order ended. Nothing a new
 * order could use is ever purged: only authorizations that expired before the cutoff go.
 */
export const MIN_ACME_RETENTION_DAYS = DEFAULT_ACME_LIFETIMES.pendingMs / DAY_MS + 1;

/**
 * What the purge may remove at `now`: records that ended before the cutoff (orders that ended
 * without a certificate and were created before it, certificates that expired before it with
 * their orders, authorizations that expired before it and no kept order names, validation
 * attempts made before it). Null when `retentionDays` is 0: everything is kept.
 */
export function acmeRetentionCutoff(now: Date, retentionDays: number): Date | null {
  if (retentionDays === 0) return null;
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/**
 * When the next purge pass is due: at once (the next sweep) when a step of this pass filled its
 * batch, so a backlog is worked off in bounded steps; else after the interval.
 */
export function nextAcmeRetentionPass(now: Date, pass: { filledABatch: boolean }, intervalMs: number): Date {
  return pass.filledABatch ? now : new Date(now.getTime() + intervalMs);
}
