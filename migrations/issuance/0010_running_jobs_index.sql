-- The stale-job reaper (ADR 0024) looks for jobs Running since before a cutoff: only Running rows
-- are indexed, so the check costs nothing however long the job history grows.
CREATE INDEX IF NOT EXISTS jobs_running_since ON jobs (updated_at) WHERE status = 'Running';
