-- SCEP probe results (spec 2.17, 4.9; ADR 0057). days_to_expiry is computed at read time, not stored.
CREATE TABLE IF NOT EXISTS scep_probes (
  id                 bigserial PRIMARY KEY,
  target_url         text NOT NULL,
  reachable          boolean NOT NULL,
  capabilities       jsonb NOT NULL DEFAULT '[]'::jsonb,
  supports_rfc8894   boolean NOT NULL DEFAULT false,
  supports_aes       boolean NOT NULL DEFAULT false,
  supports_post      boolean NOT NULL DEFAULT false,
  supports_renewal   boolean NOT NULL DEFAULT false,
  supports_sha256    boolean NOT NULL DEFAULT false,
  supports_sha512    boolean NOT NULL DEFAULT false,
  ca_subject         text,
  ca_issuer          text,
  ca_not_before      timestamptz,
  ca_not_after       timestamptz,
  key_algorithm      text,
  chain_length       integer NOT NULL DEFAULT 0,
  probed_at          timestamptz NOT NULL,
  probe_duration_ms  integer NOT NULL,
  error              text,
  requested_by       text
);
CREATE INDEX IF NOT EXISTS scep_probes_recent ON scep_probes (id DESC);
