-- The enrollment approval expiry sweep (ADR 0065, amended): the pending external enrollments in
-- deadline order, so each pass reads only those due instead of every pending approval.
CREATE INDEX IF NOT EXISTS approvals_pending_enrollment_expiry ON approvals (enrollment_expires_at, id)
  WHERE status = 'pending' AND enrollment IS NOT NULL;
