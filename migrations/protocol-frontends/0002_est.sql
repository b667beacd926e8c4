-- EST profiles (issue 20, ADR 0058): one per `/.well-known/est/<path_id>/`, with how clients
-- authenticate (the Basic password only as a scrypt hash), the mTLS trust bundle, server key
-- generation, channel binding and the per-principal rate limit; and the per-profile counters of
-- every typed outcome (spec 6.4).
CREATE TABLE IF NOT EXISTS est_profiles (
  id                       uuid PRIMARY KEY,
  path_id                  text NOT NULL CHECK (path_id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  certificate_profile_id   text CHECK (char_length(certificate_profile_id) BETWEEN 1 AND 128),
  issuer_id                text CHECK (char_length(issuer_id) BETWEEN 1 AND 128),
  auth_methods             text[] NOT NULL
                             CHECK (cardinality(auth_methods) > 0 AND auth_methods <@ ARRAY['basic', 'mtls']::text[]),
  basic_username           text CHECK (char_length(basic_username) BETWEEN 1 AND 128),
  basic_password_hash      text CHECK (basic_password_hash LIKE 'scrypt$%'),
  -- The trust bundle's source, a file (re-read by reload-trust) or inline, and the anchors in use:
  -- a file that no longer parses keeps the anchors last loaded.
  trust_bundle_path        text CHECK (trust_bundle_path ~ '^/'),
  trust_bundle_pem         text,
  trust_loaded_at          timestamptz,
  serverkeygen_enabled     boolean NOT NULL DEFAULT false,
  channel_binding_required boolean NOT NULL DEFAULT false,
  rate_limit_per_minute    integer NOT NULL DEFAULT 60 CHECK (rate_limit_per_minute BETWEEN 1 AND 100000),
  owner                    text,
  team                     text,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS est_profiles_path_id_key ON est_profiles (path_id);

CREATE TABLE IF NOT EXISTS est_profile_counters (
  profile_id uuid NOT NULL REFERENCES est_profiles (id) ON DELETE CASCADE,
  outcome    text NOT NULL CHECK (outcome ~ '^est_[a-z_]+$'),
  count      bigint NOT NULL DEFAULT 0 CHECK (count >= 0),
  PRIMARY KEY (profile_id, outcome)
);

-- The per-principal rate limit (spec 7: 429): one row per profile, principal and minute, counted
-- with one upsert, so every replica adds to the same window.
CREATE TABLE IF NOT EXISTS est_rate_windows (
  profile_id   uuid NOT NULL REFERENCES est_profiles (id) ON DELETE CASCADE,
  principal    text NOT NULL CHECK (char_length(principal) BETWEEN 1 AND 300),
  window_start timestamptz NOT NULL,
  count        integer NOT NULL CHECK (count > 0),
  PRIMARY KEY (profile_id, principal, window_start)
);
CREATE INDEX IF NOT EXISTS est_rate_windows_window_start_idx ON est_rate_windows (window_start);
