import { expiryWarningsDue } from '../renewals/renewal-schedule';

/**
 * Days before a CA's end at which its expiry is announced (ADR 0077): replacing an intermediate,
 * and moving what it signed under the new one, takes longer than renewing a leaf, so the first
 * warning comes half a year ahead.
 */
export const CA_EXPIRY_ALERT_DAYS: readonly number[] = [180, 90, 30, 7, 1];

/**
 * The CA alert thresholds crossed and not yet recorded, and which one to announce (the nearest
 * to the end): a CA first seen 20 days before its end records 180, 90 and 30 and announces 30.
 */
export function caExpiryWarningsDue(
  notAfter: Date,
  now: Date,
  alreadySent: readonly number[],
): { announce: number | null; record: number[] } {
  return expiryWarningsDue(notAfter, now, CA_EXPIRY_ALERT_DAYS, alreadySent);
}
