-- Agents (spec 2.4, 4.7) and deployment targets (spec 2.12, 4.5); ADR 0026.

-- An agent authenticates with an API key minted by the auth service for the actor
-- `agent.<id>` (role r-agent). Only the key's SHA-256 (hex) is kept here, for lookup; no
-- response ever carries it. The four sentinel agents have no key.
CREATE TABLE IF NOT EXISTS agents (
  id                  text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9._-]{0,57}$'),
  name                text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  hostname            text NOT NULL CHECK (char_length(hostname) BETWEEN 1 AND 253),
  api_key_hash        text UNIQUE CHECK (api_key_hash ~ '^[0-9a-f]{64}$'),
  -- The auth service's id of the key, to revoke it at retirement.
  api_key_id          text,
  api_key_revoked_at  timestamptz,
  sentinel            boolean NOT NULL DEFAULT false,
  os                  text NOT NULL DEFAULT '',
  architecture        text NOT NULL DEFAULT '',
  ip_address          text NOT NULL DEFAULT '',
  version             text NOT NULL DEFAULT '',
  last_heartbeat_at   timestamptz,
  registered_at       timestamptz NOT NULL DEFAULT now(),
  retired_at          timestamptz,
  retired_reason      text,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  CHECK (NOT sentinel OR retired_at IS NULL)
);
-- A name belongs to one agent that is not retired; a retired agent's name may be registered again.
CREATE UNIQUE INDEX IF NOT EXISTS agents_active_name_key ON agents (lower(name)) WHERE retired_at IS NULL;
CREATE INDEX IF NOT EXISTS agents_active ON agents (registered_at, id) WHERE retired_at IS NULL;
CREATE INDEX IF NOT EXISTS agents_retired ON agents (retired_at DESC, id) WHERE retired_at IS NOT NULL;

-- Targets. The config is stored sealed (SecretBox, target id as associated data) and, with its
-- secret-bearing keys redacted, as config_public for responses. A target is never deleted by its
-- agent's retirement (force retires it), and an agent that owns targets cannot be deleted.
CREATE TABLE IF NOT EXISTS targets (
  id             text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9._-]{0,127}$'),
  name           text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  kind           text NOT NULL CHECK (kind IN ('nginx', 'apache', 'haproxy', 'caddy', 'traefik', 'envoy',
                   'postfix', 'dovecot', 'java_keystore', 'iis', 'ssh', 'f5', 'kubernetes_secret', 'aws_acm',
                   'azure_key_vault')),
  agent_id       text REFERENCES agents (id) ON DELETE RESTRICT,
  config_sealed  text NOT NULL CHECK (config_sealed LIKE 'v1.%'),
  config_public  jsonb NOT NULL DEFAULT '{}'::jsonb,
  endpoint       text,
  retired_at     timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS targets_agent ON targets (agent_id, id) WHERE retired_at IS NULL;
CREATE INDEX IF NOT EXISTS targets_kind ON targets (kind, id);
CREATE INDEX IF NOT EXISTS targets_active ON targets (id) WHERE retired_at IS NULL;
