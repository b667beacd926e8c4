import { createHash } from 'node:crypto';

/** Spec 1 and 8: the 60 s tick (the schedule's unit; the loops of scans and cloud runs wake at it). */
export const MONITOR_TICK_SECONDS = 60;
export const MIN_INTERVAL_SECONDS = 60;
export const MAX_INTERVAL_SECONDS = 86_400;
export const DEFAULT_INTERVAL_SECONDS = 300;

/**
 * The phase of a check inside its interval, in ms: a stable hash of its id, so N checks created
 * together are spread evenly over the interval instead of all probing on the same tick.
 */
export function probePhaseMs(checkId: string, intervalSeconds: number): number {
  const digest = createHash('sha256').update(checkId).digest();
  return digest.readUInt32BE(0) % (intervalSeconds * 1000);
}

/** The first due time of a new check: the next instant at its phase. */
export function firstDueAt(checkId: string, intervalSeconds: number, now: Date): Date {
  const intervalMs = intervalSeconds * 1000;
  const phase = probePhaseMs(checkId, intervalSeconds);
  const slotStart = Math.floor(now.getTime() / intervalMs) * intervalMs;
  const candidate = slotStart + phase;
  return new Date(candidate >= now.getTime() ? candidate : candidate + intervalMs);
}

/**
 * The due time after a probe that was due at `dueAt`: one interval later, keeping the phase. A
 * monitor that fell behind (stopped, overloaded) skips the missed slots instead of probing in a
 * burst to catch up: the next due time is the first slot after `notBefore`. A claim passes its
 * horizon as `notBefore`, so a rescheduled check can never fall due again inside the window that
 * just claimed it (a late check was otherwise claimed twice by one pass and probed twice).
 */
export function nextDueAt(dueAt: Date, intervalSeconds: number, notBefore: Date): Date {
  const intervalMs = intervalSeconds * 1000;
  let next = dueAt.getTime() + intervalMs;
  if (next <= notBefore.getTime()) {
    const missed = Math.floor((notBefore.getTime() - next) / intervalMs) + 1;
    next += missed * intervalMs;
  }
  return new Date(next);
}

/**
 * How often the monitor claims and how far ahead (ms). The spec's 60 s tick is the schedule's
 * unit (intervals are whole minutes or more); the claim itself runs every second for the next
 * two seconds, so the claim work is spread evenly and no probe waits behind the claim of a whole
 * minute's checks (ADR 0057).
 */
export const CLAIM_STEP_MS = 1000;
export const CLAIM_LOOKAHEAD_MS = 2000;

/**
 * The window one claim takes: everything due before `now + lookahead`. The loop then waits for
 * each claimed probe's own due time, so a probe runs on time rather than up to a step early.
 */
export function claimHorizon(now: Date, lookaheadMs = CLAIM_LOOKAHEAD_MS): Date {
  return new Date(now.getTime() + lookaheadMs);
}

/**
 * How many checks the next claim batch may take: a replica holds at most `maxWaiting` claimed
 * probes that have not started (waiting for their due time or a slot), so after downtime one
 * replica does not claim the whole overdue backlog; the rest stays due for the others. 0: stop.
 */
export function claimBatchLimit(input: {
  waiting: number;
  claimedThisPass: number;
  batch: number;
  maxWaiting: number;
}): number {
  return Math.max(0, Math.min(input.batch, input.maxWaiting - input.waiting - input.claimedThisPass));
}

export interface DueCheck {
  id: string;
  next_check_at: Date;
  interval_seconds: number;
}

export interface ClaimedSlot {
  id: string;
  /** The slot this claim probes (in the past when the monitor fell behind). */
  dueAt: Date;
  /** Where the check's next_check_at moves in the claiming transaction: past the horizon. */
  nextDueAt: Date;
}

/** What claiming `checks` (all due before `horizon`) writes. */
export function claimSlots(checks: DueCheck[], horizon: Date): ClaimedSlot[] {
  return checks.map((check) => ({
    id: check.id,
    dueAt: check.next_check_at,
    nextDueAt: nextDueAt(check.next_check_at, check.interval_seconds, horizon),
  }));
}

/** How long to wait from `now` before running a probe due at `dueAt` (0 when late). */
export function delayUntilDue(dueAt: Date, now: Date): number {
  return Math.max(0, dueAt.getTime() - now.getTime());
}

export function isValidIntervalSeconds(value: number): boolean {
  return Number.isInteger(value) && value >= MIN_INTERVAL_SECONDS && value <= MAX_INTERVAL_SECONDS;
}
