import { AcmeProblem } from '../problems/acme-problem';

/** The validity a newOrder asks for (RFC 8555 7.4 `notBefore`, `notAfter`); null: not asked. */
export interface RequestedValidity {
  notBefore: Date | null;
  notAfter: Date | null;
}

/** What a profile lets an order ask for (ADR 0069). */
export interface RequestedValidityRules {
  /** The profile's allow_requested_validity. */
  allowed: boolean;
  /** The longest validity the profile issues, in days (its own, capped by its certificate profile). */
  maxDays: number;
}

/** The validity an order may ask for when neither profile names one (the issuers' default). */
export const DEFAULT_ACME_VALIDITY_DAYS = 90;

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export const REQUESTED_VALIDITY_LIMITS = {
  /** How far before the order notBefore may lie: the clocks of client and server may disagree. */
  clockSkewMs: 5 * MINUTE_MS,
  /** How far ahead a certificate may be dated to begin. */
  postdateMs: 30 * DAY_MS,
} as const;

/** RFC 3339 5.6 date-time (the `T` and `Z` in either case, as 5.6's note allows). */
const RFC3339_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;

function dateTime(field: 'notBefore' | 'notAfter', value: unknown): Date | null {
  if (value === undefined) return null;
  const parts = typeof value === 'string' ? RFC3339_DATE_TIME.exec(value) : null;
  const parsed = parts ? new Date(value as string) : null;
  // Date accepts 2026-02-30; the calendar fields must survive the round trip in UTC or an offset.
  const [, year, month, day, hour, minute, second] = parts ?? [];
  const valid =
    parsed !== null &&
    !Number.isNaN(parsed.getTime()) &&
    Number(month) >= 1 &&
    Number(month) <= 12 &&
    Number(day) >= 1 &&
    Number(day) <= new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate() &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59;
  if (!valid)
    throw new AcmeProblem('malformed', `${field} must be an RFC 3339 date-time (e.g. 2026-12-01T00:00:00Z)`);
  return parsed;
}

/**
 * The validity a newOrder asks for, checked against its profile at `now`: refused (`malformed`,
 * the order is not created) when the profile does not allow it, when a value is not an RFC 3339
 * date-time, when notBefore lies more than the clock skew in the past or more than 30 days ahead,
 * when notAfter is not after the start, or when the window is longer than the profile issues.
 */
export function requestedValidity(
  payload: { notBefore?: unknown; notAfter?: unknown },
  rules: RequestedValidityRules,
  now: Date,
): RequestedValidity {
  if (payload.notBefore === undefined && payload.notAfter === undefined)
    return { notBefore: null, notAfter: null };
  if (!rules.allowed)
    throw new AcmeProblem(
      'malformed',
      'this profile does not accept notBefore or notAfter: the issuer sets the validity',
    );
  const notBefore = dateTime('notBefore', payload.notBefore);
  const notAfter = dateTime('notAfter', payload.notAfter);
  if (notBefore && notBefore.getTime() < now.getTime() - REQUESTED_VALIDITY_LIMITS.clockSkewMs)
    throw new AcmeProblem('malformed', 'notBefore lies in the past: certificates are not backdated');
  if (notBefore && notBefore.getTime() > now.getTime() + REQUESTED_VALIDITY_LIMITS.postdateMs)
    throw new AcmeProblem('malformed', 'notBefore lies more than 30 days ahead');
  const start = notBefore ?? now;
  if (notAfter && notAfter.getTime() <= Math.max(start.getTime(), now.getTime()))
    throw new AcmeProblem('malformed', 'notAfter must be later than notBefore and than now');
  if (notAfter && notAfter.getTime() - start.getTime() > rules.maxDays * DAY_MS)
    throw new AcmeProblem(
      'malformed',
      `the validity asked for is longer than the ${rules.maxDays} days this profile issues`,
    );
  return { notBefore, notAfter };
}

/**
 * Whether an order's validity can still be issued at finalize (`now`): a notAfter that has passed
 * while the order waited cannot (`malformed`; the order stays ready).
 */
export function checkValidityAtFinalize(validity: RequestedValidity, now: Date): void {
  if (validity.notAfter && validity.notAfter.getTime() <= now.getTime())
    throw new AcmeProblem('malformed', "the order's notAfter has passed: place a new order");
}
