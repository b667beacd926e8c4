-- External account binding (RFC 8555 7.3.4; issue 19, ADR 0060): keys an admin creates (the HMAC
-- key sealed at rest, shown once), each binding at most one ACME account, which inherits the key's
-- owner and team.
CREATE TABLE IF NOT EXISTS acme_eab_keys (
  id               text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{8,64}$'),
  -- SecretBox 'acme eab keys', the key id as associated data.
  hmac_sealed      text NOT NULL,
  description      text CHECK (char_length(description) <= 200),
  owner            text CHECK (char_length(owner) BETWEEN 1 AND 128),
  team             text CHECK (char_length(team) BETWEEN 1 AND 128),
  created_by       text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  -- Single use: set once, by the newAccount that presented a binding MACed with this key.
  bound_account_id text UNIQUE REFERENCES acme_accounts (id),
  bound_at         timestamptz,
  revoked_at       timestamptz,
  CHECK ((bound_account_id IS NULL) = (bound_at IS NULL))
);
CREATE INDEX IF NOT EXISTS acme_eab_keys_created_at_idx ON acme_eab_keys (created_at);

ALTER TABLE acme_accounts
  ADD COLUMN IF NOT EXISTS eab_key_id text,
  ADD COLUMN IF NOT EXISTS owner text CHECK (char_length(owner) BETWEEN 1 AND 128),
  ADD COLUMN IF NOT EXISTS team text CHECK (char_length(team) BETWEEN 1 AND 128);
CREATE INDEX IF NOT EXISTS acme_accounts_created_at_idx ON acme_accounts (created_at);
