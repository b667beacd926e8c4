-- Endpoint health checks and their bounded history (spec 2.13, 3; ADR 0057).
CREATE TABLE IF NOT EXISTS health_checks (
  id                    text PRIMARY KEY,
  name                  text NOT NULL CHECK (char_length(name) <= 255),
  host                  text NOT NULL CHECK (char_length(host) BETWEEN 1 AND 253),
  port                  integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
  sni                   text CHECK (sni IS NULL OR char_length(sni) BETWEEN 1 AND 253),
  expected_fingerprint  text CHECK (expected_fingerprint IS NULL OR expected_fingerprint ~ '^[0-9a-f]{64}$'),
  interval_seconds      integer NOT NULL CHECK (interval_seconds BETWEEN 60 AND 86400),
  enabled               boolean NOT NULL DEFAULT true,
  status                text NOT NULL DEFAULT 'healthy'
                          CHECK (status IN ('healthy', 'degraded', 'down', 'cert_mismatch')),
  consecutive_failures  integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  acknowledged_at       timestamptz,
  acknowledged_by       text,
  status_changed_at     timestamptz NOT NULL DEFAULT now(),
  last_checked_at       timestamptz,
  -- The monitor claims checks whose next_check_at falls before its next tick (FOR UPDATE SKIP LOCKED).
  next_check_at         timestamptz NOT NULL,
  last_error            text,
  last_fingerprint      text,
  last_not_after        timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  CHECK (status <> 'healthy' OR acknowledged_at IS NULL)
);
CREATE INDEX IF NOT EXISTS health_checks_due ON health_checks (next_check_at) WHERE enabled;
CREATE INDEX IF NOT EXISTS health_checks_status ON health_checks (status, created_at, id);
CREATE INDEX IF NOT EXISTS health_checks_listed ON health_checks (created_at, id);

-- One row per probe; the service keeps the newest HEALTH_CHECK_HISTORY_MAX per check.
CREATE TABLE IF NOT EXISTS health_check_results (
  id               bigserial PRIMARY KEY,
  health_check_id  text NOT NULL REFERENCES health_checks (id) ON DELETE CASCADE,
  checked_at       timestamptz NOT NULL,
  success          boolean NOT NULL,
  status           text NOT NULL CHECK (status IN ('healthy', 'degraded', 'down', 'cert_mismatch')),
  handshake_ms     integer,
  tls_version      text,
  fingerprint      text,
  not_after        timestamptz,
  chain            jsonb NOT NULL DEFAULT '[]'::jsonb,
  error            text
);
CREATE INDEX IF NOT EXISTS health_check_results_by_check ON health_check_results (health_check_id, id DESC);
