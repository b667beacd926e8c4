-- The ACME server's state (issue 19, ADR 0053): nonces (single-use across replicas), accounts
-- (found by the RFC 7638 thumbprint of their key), orders, their authorizations and challenges,
-- and the certificate each valid order produced.
CREATE TABLE IF NOT EXISTS acme_nonces (
  nonce      text PRIMARY KEY CHECK (nonce ~ '^[A-Za-z0-9_-]{16,64}$'),
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS acme_nonces_expires_at_idx ON acme_nonces (expires_at);

CREATE TABLE IF NOT EXISTS acme_accounts (
  id             text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{8,64}$'),
  jwk            jsonb NOT NULL,
  jwk_thumbprint text NOT NULL CHECK (jwk_thumbprint ~ '^[A-Za-z0-9_-]{43}$'),
  status         text NOT NULL DEFAULT 'valid' CHECK (status IN ('valid', 'deactivated', 'revoked')),
  contact        jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(contact) = 'array'),
  terms_of_service_agreed boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
-- One account per key (RFC 8555 7.3.1: a second newAccount with the same key finds the first).
CREATE UNIQUE INDEX IF NOT EXISTS acme_accounts_jwk_thumbprint_key ON acme_accounts (jwk_thumbprint);

CREATE TABLE IF NOT EXISTS acme_orders (
  id          text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{8,64}$'),
  account_id  text NOT NULL REFERENCES acme_accounts (id),
  profile_id  text NOT NULL CHECK (char_length(profile_id) BETWEEN 1 AND 128),
  status      text NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'ready', 'processing', 'valid', 'invalid')),
  identifiers jsonb NOT NULL CHECK (jsonb_typeof(identifiers) = 'array' AND jsonb_array_length(identifiers) > 0),
  not_before  timestamptz,
  not_after   timestamptz,
  expires_at  timestamptz NOT NULL,
  error       jsonb,
  replaces    text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS acme_orders_account_idx ON acme_orders (account_id, created_at);
-- The expiry sweep reads only the orders that can still expire.
CREATE INDEX IF NOT EXISTS acme_orders_open_expiry_idx ON acme_orders (expires_at) WHERE status IN ('pending', 'ready');

CREATE TABLE IF NOT EXISTS acme_authorizations (
  id               text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{8,64}$'),
  account_id       text NOT NULL REFERENCES acme_accounts (id),
  identifier_type  text NOT NULL CHECK (identifier_type IN ('dns', 'ip')),
  identifier_value text NOT NULL CHECK (char_length(identifier_value) BETWEEN 1 AND 253),
  wildcard         boolean NOT NULL DEFAULT false,
  status           text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'valid', 'invalid', 'deactivated', 'expired', 'revoked')),
  expires_at       timestamptz NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
-- Authorization reuse: a valid authorization of the same account and identifier.
CREATE INDEX IF NOT EXISTS acme_authorizations_reuse_idx
  ON acme_authorizations (account_id, identifier_type, identifier_value, wildcard, expires_at) WHERE status = 'valid';
CREATE INDEX IF NOT EXISTS acme_authorizations_open_expiry_idx
  ON acme_authorizations (expires_at) WHERE status IN ('pending', 'valid');

CREATE TABLE IF NOT EXISTS acme_order_authorizations (
  order_id         text NOT NULL REFERENCES acme_orders (id) ON DELETE CASCADE,
  authorization_id text NOT NULL REFERENCES acme_authorizations (id),
  PRIMARY KEY (order_id, authorization_id)
);
CREATE INDEX IF NOT EXISTS acme_order_authorizations_authz_idx ON acme_order_authorizations (authorization_id);

CREATE TABLE IF NOT EXISTS acme_challenges (
  id               text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{8,64}$'),
  authorization_id text NOT NULL REFERENCES acme_authorizations (id) ON DELETE CASCADE,
  type             text NOT NULL CHECK (type IN ('http-01', 'dns-01', 'tls-alpn-01')),
  token            text NOT NULL CHECK (token ~ '^[A-Za-z0-9_-]{22,128}$'),
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'valid', 'invalid')),
  validated_at     timestamptz,
  error            jsonb,
  attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- A replica validating the challenge holds it until then; another takes over only after.
  claimed_until    timestamptz,
  UNIQUE (authorization_id, type)
);
CREATE UNIQUE INDEX IF NOT EXISTS acme_challenges_token_key ON acme_challenges (token);
CREATE INDEX IF NOT EXISTS acme_challenges_processing_idx ON acme_challenges (claimed_until) WHERE status = 'processing';

-- The certificate a valid order produced (issuer and serial: what revokeCert names to issuance);
-- certificate_id is the inventory's id in issuance once it is recorded there.
CREATE TABLE IF NOT EXISTS acme_certificates (
  id             text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{8,64}$'),
  order_id       text NOT NULL UNIQUE REFERENCES acme_orders (id),
  account_id     text NOT NULL REFERENCES acme_accounts (id),
  issuer_id      text NOT NULL CHECK (char_length(issuer_id) BETWEEN 1 AND 128),
  certificate_id text,
  serial_hex     text NOT NULL CHECK (serial_hex ~ '^[0-9a-f]{1,40}$'),
  pem_chain      text NOT NULL,
  not_before     timestamptz NOT NULL,
  not_after      timestamptz NOT NULL,
  -- RFC 9773 4.1: base64url(AKI) "." base64url(serial), what renewal-info/{cert_id} names.
  renewal_id     text NOT NULL UNIQUE,
  revoked_at     timestamptz,
  revocation_reason text,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS acme_certificates_serial_idx ON acme_certificates (serial_hex);
CREATE INDEX IF NOT EXISTS acme_orders_account_status_idx ON acme_orders (account_id, status);

-- Rate-limit events (new orders per account...), one row per event inside the longest window.
CREATE TABLE IF NOT EXISTS acme_rate_events (
  key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 200),
  at  timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS acme_rate_events_key_at_idx ON acme_rate_events (key, at);
CREATE INDEX IF NOT EXISTS acme_rate_events_at_idx ON acme_rate_events (at);
