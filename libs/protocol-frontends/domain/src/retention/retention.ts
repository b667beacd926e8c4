import { DEFAULT_ACME_LIFETIMES } from '../expiry/expiry';

const DAY_MS = 24 * 3600_000;

/**
 * The shortest retention an operator may set, in days: an ACME order's whole life (it expires
 * pending or ready after 7 days) and a day more, so a client still sees how an order ended; the
 * same bound covers a SCEP request waiting for an approval (issuance's default of 7 days). Nothing
 * a new request could use is ever purged.
 */
export const MIN_RETENTION_DAYS = DEFAULT_ACME_LIFETIMES.pendingMs / DAY_MS + 1;

/**
 * What a purge may remove at `now`: records that ended before the cutoff (ADR 0073 for ACME,
 * ADR 0074 for SCEP). Null when `retentionDays` is 0: everything is kept.
 */
export function retentionCutoff(now: Date, retentionDays: number): Date | null {
  if (retentionDays === 0) return null;
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/**
 * When the next purge pass is due: at once (the next sweep) when a step of this pass filled its
 * batch, so a backlog is worked off in bounded steps; else after the interval.
 */
export function nextRetentionPass(now: Date, pass: { filledABatch: boolean }, intervalMs: number): Date {
  return pass.filledABatch ? now : new Date(now.getTime() + intervalMs);
}
