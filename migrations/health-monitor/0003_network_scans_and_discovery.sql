-- Network scans and the certificates they discover (spec 2.14; ADR 0057). The scan target routes
-- and the triage routes are not built yet; the scanner records scans and findings here.
CREATE TABLE IF NOT EXISTS network_scans (
  id              text PRIMARY KEY,
  cidrs           jsonb NOT NULL DEFAULT '[]'::jsonb,
  hosts           jsonb NOT NULL DEFAULT '[]'::jsonb,
  ports           jsonb NOT NULL,
  status          text NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  endpoints_total integer NOT NULL,
  endpoints_done  integer NOT NULL DEFAULT 0,
  certificates_found integer NOT NULL DEFAULT 0,
  started_by      text NOT NULL,
  started_at      timestamptz NOT NULL,
  finished_at     timestamptz,
  error           text
);

-- One row per certificate, deduplicated by its SHA-256 fingerprint.
CREATE TABLE IF NOT EXISTS discovered_certificates (
  fingerprint    text PRIMARY KEY CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  subject        text NOT NULL,
  issuer         text NOT NULL,
  not_before     timestamptz NOT NULL,
  not_after      timestamptz NOT NULL,
  chain          jsonb NOT NULL DEFAULT '[]'::jsonb,
  status         text NOT NULL DEFAULT 'Unmanaged' CHECK (status IN ('Unmanaged', 'Claimed', 'Dismissed')),
  first_seen_at  timestamptz NOT NULL,
  last_seen_at   timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS discovered_certificates_status ON discovered_certificates (status, not_after);

-- Where a certificate was seen: `network:<host>:<port>` (later: agent paths, cloud secrets).
CREATE TABLE IF NOT EXISTS discovered_certificate_sightings (
  fingerprint    text NOT NULL REFERENCES discovered_certificates (fingerprint) ON DELETE CASCADE,
  location       text NOT NULL,
  source         text NOT NULL CHECK (source IN ('network', 'agent', 'cloud')),
  scan_id        text,
  first_seen_at  timestamptz NOT NULL,
  last_seen_at   timestamptz NOT NULL,
  PRIMARY KEY (fingerprint, location)
);
