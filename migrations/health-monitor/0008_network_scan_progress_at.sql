-- When a running scan last wrote progress (ADR 0063, fifteenth stop): the scan scheduler marks
-- `failed` a running scan whose progress has stood still too long (its replica was lost), so the
-- target's scheduled scans are not skipped forever. Null on scans from before: started_at stands in.
ALTER TABLE network_scans ADD COLUMN IF NOT EXISTS progress_at timestamptz;
CREATE INDEX IF NOT EXISTS network_scans_running ON network_scans (progress_at) WHERE status = 'running';
