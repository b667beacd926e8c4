-- Users (spec 2.15): every actor the auth service knows, deactivatable. A row appears when an
-- actor gets a stored API key (or the bootstrap key), a break-glass credential or a session.
CREATE TABLE IF NOT EXISTS users (
  id             text PRIMARY KEY,
  kind           text NOT NULL CHECK (kind IN ('api-key', 'breakglass', 'oidc')),
  active         boolean NOT NULL DEFAULT true,
  created_at     timestamptz NOT NULL DEFAULT now(),
  deactivated_at timestamptz,
  last_login_at  timestamptz,
  CHECK (active = (deactivated_at IS NULL))
);
INSERT INTO users (id, kind) SELECT DISTINCT actor_id, 'api-key' FROM api_keys ON CONFLICT (id) DO NOTHING;

-- Browser sessions (spec 5.4). The cookie carries the id and a MAC; only hashes of the CSRF
-- token and the user agent are stored.
CREATE TABLE IF NOT EXISTS sessions (
  id              text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{32}$'),
  actor_id        text NOT NULL,
  method          text NOT NULL CHECK (method IN ('breakglass', 'oidc')),
  signing_key_id  text NOT NULL,
  csrf_token_hash text NOT NULL,
  user_agent_hash text NOT NULL,
  client_ip       text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  last_seen_at    timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL,
  revoked_at      timestamptz
);
CREATE INDEX IF NOT EXISTS sessions_actor_idx ON sessions (actor_id);
CREATE INDEX IF NOT EXISTS sessions_expires_idx ON sessions (expires_at);

-- Break-glass credentials (spec 5.7): scrypt hashes only; locked after repeated failures.
CREATE TABLE IF NOT EXISTS breakglass_credentials (
  actor_id        text PRIMARY KEY,
  password_hash   text NOT NULL,
  failed_attempts integer NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
  locked          boolean NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  last_login_at   timestamptz
);

-- Break-glass login attempts per client IP: the rate limit shared by every gateway replica.
CREATE TABLE IF NOT EXISTS breakglass_login_attempts (
  id           bigserial PRIMARY KEY,
  client_ip    text NOT NULL,
  attempted_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX IF NOT EXISTS breakglass_login_attempts_ip_idx ON breakglass_login_attempts (client_ip, attempted_at);
