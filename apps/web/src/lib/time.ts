const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86400_000],
  ['month', 30 * 86400_000],
  ['day', 86400_000],
  ['hour', 3600_000],
  ['minute', 60_000],
];

/** "in 3 days", "2 hours ago", "now": the largest whole unit of the distance. */
export function relativeTime(iso: string, now: number): string {
  const delta = Date.parse(iso) - now;
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [unit, ms] of UNITS) {
    if (Math.abs(delta) >= ms) return format.format(Math.trunc(delta / ms), unit);
  }
  return 'now';
}

export type ExpiryLevel = 'expired' | 'critical' | 'warning' | 'ok' | 'none';

/** How close an expiry is; shown as colour and as words (never colour alone, WCAG 1.4.1). */
export function expiryLevel(expiresAt: string | null, now: number): ExpiryLevel {
  if (!expiresAt) return 'none';
  const days = (Date.parse(expiresAt) - now) / 86400_000;
  if (days < 0) return 'expired';
  if (days <= 7) return 'critical';
  if (days <= 30) return 'warning';
  return 'ok';
}

export const EXPIRY_WORDS: Record<ExpiryLevel, string> = {
  expired: 'expired',
  critical: 'expires within 7 days',
  warning: 'expires within 30 days',
  ok: 'valid',
  none: 'not issued',
};
