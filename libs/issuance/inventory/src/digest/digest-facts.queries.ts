/**
 * The daily digest's facts (issue 22, docs/notifications.md "Digest"): each section one indexed
 * statement, ordered by urgency, capped at $limit rows, with its uncapped count in every row
 * (count(*) OVER ()), so a section costs one round trip however large it is.
 */

/** Live certificates expiring in (now, now + $1 days]: the certificates_live_expires range. */
export const EXPIRING_CERTIFICATES = `
SELECT id AS certificate_id, common_name, owner_id, team_id, environment, status, expires_at,
       count(*) OVER ()::int AS total
FROM certificates
WHERE expires_at > now() AND expires_at <= now() + make_interval(days => $1::int)
  AND expires_at IS NOT NULL AND status NOT IN ('Archived', 'Revoked')
ORDER BY expires_at, id
LIMIT $2`;

/** Renewal, issuance and deployment jobs that failed since $1, newest first. */
export const FAILED_JOBS = `
SELECT j.id AS job_id, j.type AS job_type, j.last_error AS error,
       coalesce(j.completed_at, j.updated_at) AS failed_at,
       c.id AS certificate_id, c.common_name, c.owner_id, c.team_id, c.environment,
       count(*) OVER ()::int AS total
FROM jobs j JOIN certificates c ON c.id = j.certificate_id
WHERE j.status = 'Failed' AND j.type IN ('Issuance', 'Renewal', 'Deployment')
  AND coalesce(j.completed_at, j.updated_at) >= $1
ORDER BY coalesce(j.completed_at, j.updated_at) DESC, j.id
LIMIT $2`;

/** Open policy violations (resolved_at null), oldest first. */
export const OPEN_VIOLATIONS = `
SELECT v.id AS violation_id, v.severity, v.message, v.detected_at,
       c.id AS certificate_id, c.common_name, c.owner_id, c.team_id, c.environment,
       count(*) OVER ()::int AS total
FROM policy_violations v JOIN certificates c ON c.id = v.certificate_id
WHERE v.resolved_at IS NULL
ORDER BY v.detected_at, v.id
LIMIT $1`;

/** Pending certificate approvals, oldest first (profile edits have no certificate, owner or team). */
export const PENDING_APPROVALS = `
SELECT a.id AS approval_id, a.requested_by, a.created_at AS requested_at,
       c.id AS certificate_id, c.common_name, c.owner_id, c.team_id, c.environment,
       count(*) OVER ()::int AS total
FROM approvals a JOIN certificates c ON c.id = a.certificate_id
WHERE a.status = 'pending' AND a.approval_kind = 'cert_issuance'
ORDER BY a.created_at, a.id
LIMIT $1`;
