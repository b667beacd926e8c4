-- The per-principal rate limit of SCEP profiles (ADR 0059): MDM-authorised requests count per
-- device (`mdm:<sub>`) in fixed one-minute windows, one upsert per request, so replicas share it.
CREATE TABLE IF NOT EXISTS scep_rate_windows (
  profile_id   uuid NOT NULL REFERENCES scep_profiles (id) ON DELETE CASCADE,
  principal    text NOT NULL CHECK (char_length(principal) BETWEEN 1 AND 300),
  window_start timestamptz NOT NULL,
  count        integer NOT NULL CHECK (count > 0),
  PRIMARY KEY (profile_id, principal, window_start)
);
CREATE INDEX IF NOT EXISTS scep_rate_windows_window_start_idx ON scep_rate_windows (window_start);
