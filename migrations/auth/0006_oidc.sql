-- OIDC sign-in (spec 4.10, 5.4, 5.5; ADR 0081).

-- Identity providers. The client secret is sealed (SecretBox, the provider id as associated data);
-- the key set's last fetch is kept so every replica reports the same health snapshot.
CREATE TABLE IF NOT EXISTS oidc_providers (
  id                    uuid PRIMARY KEY,
  name                  text NOT NULL UNIQUE,
  issuer                text NOT NULL,
  client_id             text NOT NULL,
  client_secret_sealed  text,
  redirect_uri          text NOT NULL,
  scopes                text[] NOT NULL,
  group_claim           text NOT NULL,
  allowed_email_domains text[] NOT NULL DEFAULT '{}',
  id_token_signing_alg  text NOT NULL,
  enabled               boolean NOT NULL DEFAULT true,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  jwks_uri              text,
  jwks_fetched_at       timestamptz,
  jwks_keys             jsonb NOT NULL DEFAULT '[]',
  jwks_error            text
);

-- Group claim value -> role, per provider.
CREATE TABLE IF NOT EXISTS oidc_group_mappings (
  id          uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES oidc_providers (id) ON DELETE CASCADE,
  group_value text NOT NULL,
  role_id     text NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  created_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_id, group_value, role_id)
);

-- Who signed in through which provider: (provider, sub) is the identity; the actor id derives
-- from the issuer and sub. The provider cannot be deleted while it has identities (409).
CREATE TABLE IF NOT EXISTS oidc_identities (
  provider_id   uuid NOT NULL REFERENCES oidc_providers (id),
  subject       text NOT NULL,
  actor_id      text NOT NULL,
  email         text,
  -- Roles this identity holds through group mappings: the next sign-in replaces exactly these.
  mapped_roles  text[] NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_login_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider_id, subject)
);
CREATE INDEX IF NOT EXISTS oidc_identities_actor_idx ON oidc_identities (actor_id);

-- Pre-login state (spec 5.4 service_oidc_pending): single use, 600 seconds. The cookie value is
-- stored as its SHA-256 only.
CREATE TABLE IF NOT EXISTS oidc_prelogins (
  cookie_hash     text PRIMARY KEY,
  provider_id     uuid NOT NULL REFERENCES oidc_providers (id) ON DELETE CASCADE,
  state           text NOT NULL,
  nonce           text NOT NULL,
  code_verifier   text NOT NULL,
  user_agent_hash text NOT NULL,
  client_ip       text NOT NULL,
  expires_at      timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS oidc_prelogins_expires_idx ON oidc_prelogins (expires_at);
CREATE INDEX IF NOT EXISTS oidc_prelogins_client_ip_idx ON oidc_prelogins (client_ip);

-- Logout tokens seen (their jti), so a replayed one revokes nothing; kept past their max age.
CREATE TABLE IF NOT EXISTS oidc_logout_tokens_seen (
  provider_id uuid NOT NULL REFERENCES oidc_providers (id) ON DELETE CASCADE,
  jti         text NOT NULL,
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (provider_id, jti)
);

-- An OIDC session remembers its provider, subject and the IdP's session id (`sid`), which
-- back-channel logout names.
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS oidc_provider_id uuid;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS oidc_subject text;
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS oidc_sid text;
CREATE INDEX IF NOT EXISTS sessions_oidc_idx ON sessions (oidc_provider_id, oidc_subject) WHERE oidc_provider_id IS NOT NULL;
