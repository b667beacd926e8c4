/** The monitor's clock, injected so tests drive transitions and schedules with a fake one. */
export interface MonitorClock {
  now(): Date;
}

export const MONITOR_CLOCK = Symbol('MONITOR_CLOCK');

export const SYSTEM_CLOCK: MonitorClock = { now: () => new Date() };
