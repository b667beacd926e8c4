/**
 * The expiry loop's SQL (ADR 0024). `clockStatusSql` is the SQL twin of the domain's
 *   nextCertificateStatus(status, { kind: 'clock', validity: statusByValidity(expires_at, now, window) })
 * and expiry-predicate.int-spec.ts checks that the two agree on a table of dates. Days are
 * exactly 86,400 s (as DAY_MS in the domain), never calendar days, so a daylight-saving change in
 * the session's time zone cannot move a boundary.
 */

/** The validity the dates give: Expired at expires_at, Expiring inside the window, else Active. */
export function validitySql(expiresAt: string, windowDays: string, now: string): string {
  return `CASE WHEN ${expiresAt} <= ${now} THEN 'Expired'
      WHEN ${expiresAt} <= ${now} + ${windowDays} * interval '86400 seconds' THEN 'Expiring'
      ELSE 'Active' END`;
}

/**
 * The status after a clock event: Active and Expiring follow the dates, Failed becomes Expired
 * once expired, every other status (and a certificate without dates) stays.
 */
export function clockStatusSql(status: string, expiresAt: string, windowDays: string, now: string): string {
  return `CASE WHEN ${expiresAt} IS NULL THEN ${status}
    WHEN ${status} IN ('Active', 'Expiring') THEN ${validitySql(expiresAt, windowDays, now)}
    WHEN ${status} = 'Failed' AND ${expiresAt} <= ${now} THEN 'Expired'
    ELSE ${status} END`;
}

const NEXT = clockStatusSql('c.status', 'c.expires_at', 'p.renewal_window_days', '$1::timestamptz');

/**
 * The instants bounding what a sweep at `now` may move: now + the widest and now + the narrowest
 * renewal window. Read before each batch and passed as parameters ($3, $4), so the planner sees
 * the real range bounds and picks the narrow index ranges.
 */
export const RENEWAL_WINDOW_BOUNDS = `
SELECT $1::timestamptz + coalesce(max(renewal_window_days), 0) * interval '86400 seconds' AS widest,
       $1::timestamptz + coalesce(min(renewal_window_days), 0) * interval '86400 seconds' AS narrowest
FROM renewal_policies`;

/**
 * One batch: at most $2 certificates whose status the clock ($1) changes, locked (rows another
 * transaction holds are left for the next sweep), updated, and returned with both statuses.
 * Candidates are exactly the rows that can change, found by four range scans of the partial
 * index certificates_clock_due (status, expires_at), so a sweep does not re-read the certificates
 * that sit inside their window:
 * - Active up to $3 = now + the widest window (Expiring or Expired now);
 * - Expiring, and Failed, up to now (Expired now);
 * - Expiring beyond $4 = now + the narrowest window (a window that shrank sends them back to
 *   Active).
 * Each range (one status each) is read in expires_at order with the batch's LIMIT (earliest first), which also tells
 * the planner to walk certificates_clock_due rather than a wider index on expires_at alone.
 * The UPDATE recomputes the status from the locked row, so a row changed meanwhile is judged as
 * it is now.
 */
export const EXPIRY_BATCH = `
WITH candidates AS (
  (SELECT c.id FROM certificates c JOIN renewal_policies p ON p.id = c.renewal_policy_id
   WHERE c.status = 'Active' AND c.expires_at <= $3::timestamptz AND (${NEXT}) <> c.status
   ORDER BY c.expires_at LIMIT $2)
  UNION ALL
  (SELECT c.id FROM certificates c JOIN renewal_policies p ON p.id = c.renewal_policy_id
   WHERE c.status = 'Expiring' AND c.expires_at <= $1::timestamptz AND (${NEXT}) <> c.status
   ORDER BY c.expires_at LIMIT $2)
  UNION ALL
  (SELECT c.id FROM certificates c JOIN renewal_policies p ON p.id = c.renewal_policy_id
   WHERE c.status = 'Failed' AND c.expires_at <= $1::timestamptz AND (${NEXT}) <> c.status
   ORDER BY c.expires_at LIMIT $2)
  UNION ALL
  (SELECT c.id FROM certificates c JOIN renewal_policies p ON p.id = c.renewal_policy_id
   WHERE c.status = 'Expiring' AND c.expires_at > $4::timestamptz AND (${NEXT}) <> c.status
   ORDER BY c.expires_at LIMIT $2)
  LIMIT $2
),
due AS (
  SELECT c.id, c.status FROM certificates c WHERE c.id IN (SELECT id FROM candidates)
  FOR UPDATE OF c SKIP LOCKED
)
UPDATE certificates c
SET status = ${NEXT}, updated_at = now()
FROM due, renewal_policies p
WHERE c.id = due.id AND p.id = c.renewal_policy_id AND (${NEXT}) <> c.status
RETURNING c.id, due.status AS from_status, c.status AS to_status`;
