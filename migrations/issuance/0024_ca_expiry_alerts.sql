-- ADR 0077: the CA alert thresholds already announced, one row per CA, end date and threshold. The
-- primary key is what makes a warning go out once: the replica whose INSERT adds the row sends it.
CREATE TABLE IF NOT EXISTS ca_expiry_alerts (
  ca_id           text NOT NULL REFERENCES ca_certificates (id) ON DELETE CASCADE,
  not_after       timestamptz NOT NULL,
  threshold_days  integer NOT NULL CHECK (threshold_days BETWEEN 0 AND 3650),
  sent_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (ca_id, not_after, threshold_days)
);
