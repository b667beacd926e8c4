-- API keys (spec 2.15, 5.1): only the SHA-256 hash of a key is stored.
CREATE TABLE IF NOT EXISTS api_keys (
  id           text PRIMARY KEY,
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 128),
  key_hash     text NOT NULL,
  actor_id     text NOT NULL,
  tenant       text NOT NULL DEFAULT 'default',
  admin        boolean NOT NULL DEFAULT false,
  created_by   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz,
  last_used_at timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS api_keys_name_key ON api_keys (name);
CREATE UNIQUE INDEX IF NOT EXISTS api_keys_key_hash_key ON api_keys (key_hash);
CREATE INDEX IF NOT EXISTS api_keys_actor_idx ON api_keys (actor_id);

-- Role grants of actors. The full role and permission model lands with RBAC; the bootstrap
-- grants r-admin here already.
CREATE TABLE IF NOT EXISTS actor_roles (
  actor_id   text NOT NULL,
  role_id    text NOT NULL,
  granted_by text NOT NULL,
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (actor_id, role_id)
);

-- Day-0 bootstrap (spec 5.6): one row once consumed; the primary key makes it single-use.
CREATE TABLE IF NOT EXISTS bootstrap_state (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  actor_id    text NOT NULL,
  key_id      text NOT NULL,
  consumed_at timestamptz NOT NULL DEFAULT now()
);
