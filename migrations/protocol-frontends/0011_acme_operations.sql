-- ACME, the operators' side (issue 19 points 5 and 10, ADR 0060 "Operations").
-- Early renewal asked by an operator (RFC 9773 4.2): the suggested window moved to
-- [renew_early_start, renew_early_end], with an explanationURL a human can read. A revoked
-- certificate's window is already past; its explanationURL is the configured one.
ALTER TABLE acme_certificates ADD COLUMN IF NOT EXISTS renew_early_start timestamptz;
ALTER TABLE acme_certificates ADD COLUMN IF NOT EXISTS renew_early_end timestamptz;
ALTER TABLE acme_certificates ADD COLUMN IF NOT EXISTS explanation_url text
  CHECK (explanation_url IS NULL OR char_length(explanation_url) BETWEEN 9 AND 2048);
ALTER TABLE acme_certificates ADD COLUMN IF NOT EXISTS renew_early_by text;

-- Operators list orders newest first, optionally of one status.
CREATE INDEX IF NOT EXISTS acme_orders_created_idx ON acme_orders (created_at DESC);
CREATE INDEX IF NOT EXISTS acme_orders_status_created_idx ON acme_orders (status, created_at DESC);

-- Every validation attempt (issue 19 points 4 and 10): a retried one (`retry`) and the final
-- one (`valid` / `invalid`), written in the transaction that changes the challenge. The
-- identifier, type and account are copied so the record outlives a swept authorization.
CREATE TABLE IF NOT EXISTS acme_validation_attempts (
  id               bigserial PRIMARY KEY,
  challenge_id     text NOT NULL,
  authorization_id text NOT NULL,
  account_id       text NOT NULL,
  type             text NOT NULL CHECK (char_length(type) BETWEEN 1 AND 32),
  identifier_type  text NOT NULL CHECK (identifier_type IN ('dns', 'ip')),
  identifier_value text NOT NULL CHECK (char_length(identifier_value) BETWEEN 1 AND 253),
  result           text NOT NULL CHECK (result IN ('valid', 'invalid', 'retry')),
  error            jsonb,
  -- The address the validator connected to (http-01, tls-alpn-01), when it got that far.
  remote_address   text CHECK (remote_address IS NULL OR char_length(remote_address) <= 64),
  attempted_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS acme_validation_attempts_at_idx ON acme_validation_attempts (attempted_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS acme_validation_attempts_challenge_idx ON acme_validation_attempts (challenge_id);
CREATE INDEX IF NOT EXISTS acme_validation_attempts_authorization_idx ON acme_validation_attempts (authorization_id);
CREATE INDEX IF NOT EXISTS acme_validation_attempts_account_idx ON acme_validation_attempts (account_id, attempted_at DESC);
