-- Renewal policies (spec 2.8). Bounds are repeated as CHECK constraints so no writer can store
-- an out-of-range value, whatever path it takes.
CREATE TABLE IF NOT EXISTS renewal_policies (
  id                     text PRIMARY KEY,
  name                   text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  renewal_window_days    integer NOT NULL CHECK (renewal_window_days BETWEEN 1 AND 365),
  max_retries            integer NOT NULL CHECK (max_retries BETWEEN 0 AND 10),
  retry_interval_seconds integer NOT NULL CHECK (retry_interval_seconds BETWEEN 60 AND 86400),
  alert_thresholds_days  integer[] NOT NULL DEFAULT '{30,14,7,0}' CHECK (cardinality(alert_thresholds_days) <= 32),
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS renewal_policies_name_key ON renewal_policies (lower(name));
