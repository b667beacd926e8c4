-- Network scan targets (spec 2.14, 4.12; ADR 0057): what a triggered scan probes and how fast.
CREATE TABLE IF NOT EXISTS scan_targets (
  id              text PRIMARY KEY,
  name            text NOT NULL,
  cidrs           jsonb NOT NULL DEFAULT '[]'::jsonb,
  hosts           jsonb NOT NULL DEFAULT '[]'::jsonb,
  ports           jsonb NOT NULL,
  concurrency     integer NOT NULL CHECK (concurrency BETWEEN 1 AND 256),
  rate_per_second integer NOT NULL CHECK (rate_per_second BETWEEN 1 AND 10000),
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);

-- A scan keeps its target's id (null once the target is deleted; the scan stays as a record).
ALTER TABLE network_scans ADD COLUMN IF NOT EXISTS target_id text;
CREATE INDEX IF NOT EXISTS network_scans_target ON network_scans (target_id, started_at DESC);

-- The served leaf itself (public), so a claim can import it into the inventory with its real
-- issuer; and the managed certificate a claim created.
ALTER TABLE discovered_certificates ADD COLUMN IF NOT EXISTS certificate_pem text;
ALTER TABLE discovered_certificates ADD COLUMN IF NOT EXISTS managed_certificate_id text;
