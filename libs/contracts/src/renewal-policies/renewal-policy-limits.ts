/** Bounds and defaults of a renewal policy (spec 2.8 and 8). */
export const RENEWAL_POLICY_LIMITS = {
  name: { min: 1, max: 255 },
  renewalWindowDays: { min: 1, max: 365, default: 30 },
  maxRetries: { min: 0, max: 10 },
  retryIntervalSeconds: { min: 60, max: 86400, default: 3600 },
  alertThresholdDays: { min: 0, max: 365, maxEntries: 32, default: [30, 14, 7, 0] as readonly number[] },
} as const;
