import { createHash } from 'node:crypto';

/** Spec 1 and 8: the monitor loop wakes every 60 s. */
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
 * burst to catch up: the next due time is the first slot after `now`.
 */
export function nextDueAt(dueAt: Date, intervalSeconds: number, now: Date): Date {
  const intervalMs = intervalSeconds * 1000;
  let next = dueAt.getTime() + intervalMs;
  if (next <= now.getTime()) {
    const missed = Math.floor((now.getTime() - next) / intervalMs) + 1;
    next += missed * intervalMs;
  }
  return new Date(next);
}

/**
 * The window one tick claims: everything due before the next tick starts. The loop then waits
 * for each claimed probe's own due time, so a probe runs on time rather than up to a tick late.
 */
export function claimHorizon(tickStart: Date, tickSeconds = MONITOR_TICK_SECONDS): Date {
  return new Date(tickStart.getTime() + tickSeconds * 1000);
}

/** How long to wait from `now` before running a probe due at `dueAt` (0 when late). */
export function delayUntilDue(dueAt: Date, now: Date): number {
  return Math.max(0, dueAt.getTime() - now.getTime());
}

export function isValidIntervalSeconds(value: number): boolean {
  return Number.isInteger(value) && value >= MIN_INTERVAL_SECONDS && value <= MAX_INTERVAL_SECONDS;
}
