import { nextDueAt } from '../scheduling/probe-schedule';

/**
 * When a target's next scheduled scan is due after its schedule is set or changed: one period
 * from now (an operator who wants a scan now triggers one); null when it has no schedule.
 */
export function scheduledScanAfterEdit(scheduleSeconds: number | null, now: Date): Date | null {
  return scheduleSeconds === null ? null : new Date(now.getTime() + scheduleSeconds * 1000);
}

export type ScheduledScanDecision =
  | { action: 'start'; nextScanAt: Date }
  | { action: 'skip'; reason: 'previous_scan_running'; nextScanAt: Date };

/**
 * A due scheduled scan: it starts unless the target's previous scan is still running (scheduled
 * scans of one target never overlap; the slot is skipped, not queued). Either way the next due
 * time is one period after this one, skipping slots missed while no monitor ran.
 */
export function scheduledScanDecision(input: {
  dueAt: Date;
  scheduleSeconds: number;
  now: Date;
  previousScanRunning: boolean;
}): ScheduledScanDecision {
  const nextScanAt = nextDueAt(input.dueAt, input.scheduleSeconds, input.now);
  return input.previousScanRunning
    ? { action: 'skip', reason: 'previous_scan_running', nextScanAt }
    : { action: 'start', nextScanAt };
}
