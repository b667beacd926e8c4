/**
 * The dashboard's SQL (ADR 0024, docs/architecture.md "Inventory stats"). Every query is one
 * statement over indexed ranges; days are UTC calendar days; generate_series supplies the days
 * without rows so the series has no gaps. Kept here, as text, so changes are reviewed as SQL.
 */

/**
 * Certificates by status, from the per-filter counts of migration 0005 (kept by triggers): a few
 * index entries, where a GROUP BY over a million rows costs 100+ ms.
 */
export const CERTIFICATES_BY_STATUS = `
SELECT value AS status, sum(delta)::int AS n FROM certificate_count_deltas
WHERE dimension = 'status' GROUP BY value HAVING sum(delta) <> 0`;

/**
 * Live certificates (not Archived, not Revoked) whose expiry falls in (now, now + 7/30/90 days]:
 * an index-only range scan of certificates_live_expires (migration 0005) bounded by the widest
 * window; its partial predicate is this query's status condition.
 */
export const EXPIRING_WITHIN = `
SELECT count(*) FILTER (WHERE expires_at <= now() + interval '168 hours')::int  AS days_7,
       count(*) FILTER (WHERE expires_at <= now() + interval '720 hours')::int AS days_30,
       count(*)::int                                                          AS days_90
FROM certificates
WHERE expires_at > now() AND expires_at <= now() + interval '2160 hours'
  AND expires_at IS NOT NULL AND status NOT IN ('Archived', 'Revoked')`;

/** Jobs by status: an index-only scan of jobs_status. */
export const JOBS_BY_STATUS = `SELECT status, count(*)::int AS n FROM jobs GROUP BY status`;

/**
 * $1 days ahead, today (UTC) first: live certificates whose expires_at falls on each day, by an
 * index-only range scan of certificates_live_expires; days without certificates count 0.
 */
export const EXPIRATION_TIMELINE = `
WITH bounds AS (SELECT (now() AT TIME ZONE 'UTC')::date AS first_day),
     per_day AS (
       SELECT (c.expires_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS n
       FROM certificates c, bounds b
       WHERE c.expires_at >= b.first_day::timestamp AT TIME ZONE 'UTC'
         AND c.expires_at < (b.first_day + $1::int)::timestamp AT TIME ZONE 'UTC'
         AND c.expires_at IS NOT NULL AND c.status NOT IN ('Archived', 'Revoked')
       GROUP BY 1)
SELECT to_char(d.day, 'YYYY-MM-DD') AS date, coalesce(p.n, 0) AS count
FROM bounds b
CROSS JOIN LATERAL (SELECT b.first_day + i AS day FROM generate_series(0, $1::int - 1) AS i) d
LEFT JOIN per_day p ON p.day = d.day
ORDER BY d.day`;

/** $1 days behind, today (UTC) last: versions issued per day (certificate_versions_issued). */
export const ISSUANCE_RATE = `
WITH bounds AS (SELECT (now() AT TIME ZONE 'UTC')::date - ($1::int - 1) AS first_day),
     per_day AS (
       SELECT (v.issued_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS n
       FROM certificate_versions v, bounds b
       WHERE v.issued_at >= b.first_day::timestamp AT TIME ZONE 'UTC'
         AND v.issued_at < (b.first_day + $1::int)::timestamp AT TIME ZONE 'UTC'
       GROUP BY 1)
SELECT to_char(d.day, 'YYYY-MM-DD') AS date, coalesce(p.n, 0) AS count
FROM bounds b
CROSS JOIN LATERAL (SELECT b.first_day + i AS day FROM generate_series(0, $1::int - 1) AS i) d
LEFT JOIN per_day p ON p.day = d.day
ORDER BY d.day`;

/** $1 days behind, today (UTC) last: jobs finished per day by outcome (jobs_completed). */
export const JOB_TRENDS = `
WITH bounds AS (SELECT (now() AT TIME ZONE 'UTC')::date - ($1::int - 1) AS first_day),
     per_day AS (
       SELECT (j.completed_at AT TIME ZONE 'UTC')::date AS day,
              count(*) FILTER (WHERE j.status = 'Completed')::int AS completed,
              count(*) FILTER (WHERE j.status = 'Failed')::int    AS failed,
              count(*) FILTER (WHERE j.status = 'Cancelled')::int AS cancelled
       FROM jobs j, bounds b
       WHERE j.completed_at >= b.first_day::timestamp AT TIME ZONE 'UTC'
         AND j.completed_at < (b.first_day + $1::int)::timestamp AT TIME ZONE 'UTC'
         AND j.status IN ('Completed', 'Failed', 'Cancelled')
       GROUP BY 1)
SELECT to_char(d.day, 'YYYY-MM-DD') AS date,
       coalesce(p.completed, 0) AS completed, coalesce(p.failed, 0) AS failed,
       coalesce(p.cancelled, 0) AS cancelled
FROM bounds b
CROSS JOIN LATERAL (SELECT b.first_day + i AS day FROM generate_series(0, $1::int - 1) AS i) d
LEFT JOIN per_day p ON p.day = d.day
ORDER BY d.day`;
