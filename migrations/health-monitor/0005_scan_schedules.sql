-- Scheduled network scans (issue 23; ADR 0063): a target may repeat every schedule_seconds; the
-- scan scheduler claims targets whose next_scan_at has passed (FOR UPDATE SKIP LOCKED).
ALTER TABLE scan_targets ADD COLUMN IF NOT EXISTS schedule_seconds integer
  CHECK (schedule_seconds IS NULL OR schedule_seconds BETWEEN 900 AND 2592000);
ALTER TABLE scan_targets ADD COLUMN IF NOT EXISTS next_scan_at timestamptz;
CREATE INDEX IF NOT EXISTS scan_targets_due ON scan_targets (next_scan_at) WHERE next_scan_at IS NOT NULL;
-- Who started a scan: `scheduled` is true for the scheduler's scans (started_by is then `system`).
ALTER TABLE network_scans ADD COLUMN IF NOT EXISTS scheduled boolean NOT NULL DEFAULT false;
