/**
 * Per-notifier delivery limits (issue 22; ADR 0062): how many sends to one notifier may be in
 * flight at once across all replicas, and how many may start per second. Receivers set them:
 * Slack allows about one message per second per incoming webhook; PagerDuty's Events API about
 * 120 events per minute per routing key. Settings `max_per_second` and `max_concurrent` override.
 */
export interface DeliveryLimits {
  /** Sends started per second; null for no rate limit. */
  per_second: number | null;
  /** Sends in flight at once. */
  concurrency: number;
}

export const KIND_LIMITS: Readonly<Record<string, DeliveryLimits>> = {
  slack: { per_second: 1, concurrency: 1 },
  teams: { per_second: 1, concurrency: 1 },
  pagerduty: { per_second: 2, concurrency: 2 },
  opsgenie: { per_second: null, concurrency: 4 },
  webhook: { per_second: null, concurrency: 4 },
  email: { per_second: null, concurrency: 4 },
};

/** The settings every notifier kind accepts, besides its own (`NotifierConnector.settingKeys`). */
export const DELIVERY_LIMIT_SETTINGS = ['max_per_second', 'max_concurrent'] as const;

export const MAX_CONCURRENCY = 16;
export const MAX_PER_SECOND = 1000;

/** The notifier's limits: its kind's defaults with `max_per_second` / `max_concurrent` applied. */
export function deliveryLimits(
  kind: string,
  settings: Record<string, unknown>,
): DeliveryLimits | { invalid: string } {
  const defaults = KIND_LIMITS[kind] ?? { per_second: null, concurrency: 4 };
  const { max_per_second: perSecond, max_concurrent: concurrent } = settings;
  if (
    perSecond !== undefined &&
    perSecond !== null &&
    (typeof perSecond !== 'number' || !(perSecond > 0) || perSecond > MAX_PER_SECOND)
  )
    return {
      invalid: `max_per_second must be a number above 0 and at most ${MAX_PER_SECOND}, or null for no limit`,
    };
  if (
    concurrent !== undefined &&
    (!Number.isInteger(concurrent) || (concurrent as number) < 1 || (concurrent as number) > MAX_CONCURRENCY)
  )
    return { invalid: `max_concurrent must be an integer 1..${MAX_CONCURRENCY}` };
  return {
    per_second: perSecond === undefined ? defaults.per_second : (perSecond as number | null),
    concurrency: concurrent === undefined ? defaults.concurrency : (concurrent as number),
  };
}

/** Milliseconds between two sends at `perSecond`. */
export const sendIntervalMs = (perSecond: number): number => Math.ceil(1000 / perSecond);

/**
 * What to do with a send whose rate slot is `slot` (the earliest time the notifier may be sent
 * to again, shared by the replicas): send now, wait a little first (at most `maxWaitMs`, holding
 * the claim), or give the notification back until the slot (nothing counted against it).
 */
export type SlotDecision = { kind: 'send'; waitMs: number } | { kind: 'defer'; until: Date };

export function slotDecision(slot: Date, now: Date, maxWaitMs: number): SlotDecision {
  const waitMs = slot.getTime() - now.getTime();
  if (waitMs <= 0) return { kind: 'send', waitMs: 0 };
  if (waitMs <= maxWaitMs) return { kind: 'send', waitMs };
  return { kind: 'defer', until: slot };
}
