-- The monitor trims a check's history every HEALTH_CHECK_TRIM_EVERY probes instead of on every
-- probe (ADR 0057): this counts the results written since the last trim. Reads show the newest
-- HEALTH_CHECK_HISTORY_MAX, so the bound an operator sees is exact.
ALTER TABLE health_checks ADD COLUMN IF NOT EXISTS results_since_trim integer NOT NULL DEFAULT 0;

-- Certificates no longer seen (ADR 0063): a sighting is gone when a complete run of its scope (a
-- completed scan of the same target, an agent's complete walk, a cloud sentinel's completed run)
-- did not see it again; a certificate is gone when all its sightings are. Re-discovery clears both.
ALTER TABLE discovered_certificate_sightings ADD COLUMN IF NOT EXISTS gone_at timestamptz;
ALTER TABLE discovered_certificates ADD COLUMN IF NOT EXISTS gone_at timestamptz;
CREATE INDEX IF NOT EXISTS discovered_certificate_sightings_present_by_scan
  ON discovered_certificate_sightings (scan_id) WHERE gone_at IS NULL;
