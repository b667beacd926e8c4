-- Issuers (spec 2.12, 4.5) and the local CA (ADR 0021, ADR 0022). Secret material is stored only
-- sealed by the service's SecretBox (AES-256-GCM, `v1.<iv>.<ciphertext>.<tag>`): the issuer
-- config in `config_sealed`, CA private keys (PKCS#8 DER) in `private_key_sealed`. No column holds
-- a private key or a secret in the clear.
CREATE TABLE IF NOT EXISTS issuers (
  id             text PRIMARY KEY CHECK (id ~ '^iss-[a-z0-9-]{1,60}$'),
  name           text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  kind           text NOT NULL,
  -- The whole config, sealed with the issuer id as associated data.
  config_sealed  text NOT NULL CHECK (config_sealed LIKE 'v1.%'),
  -- The config with secret-bearing keys redacted: what responses show (never decrypted for it).
  config_public  jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS issuers_name_key ON issuers (lower(name));

-- CA certificates of local CA issuers: roots, intermediates, and sub-CAs waiting for the
-- certificate an external root signs (status pending, certificate_pem null, csr_pem set).
CREATE TABLE IF NOT EXISTS ca_certificates (
  id                  text PRIMARY KEY CHECK (id ~ '^ca-[a-z0-9-]{1,80}$'),
  issuer_id           text REFERENCES issuers (id) ON DELETE RESTRICT,
  parent_id           text REFERENCES ca_certificates (id) ON DELETE RESTRICT,
  subject             text NOT NULL,
  certificate_pem     text,
  csr_pem             text,
  -- A sub-CA's external parents (issuer first, up to the external root), as installed.
  external_chain_pem  text,
  key_provider        text NOT NULL DEFAULT 'software',
  private_key_sealed  text NOT NULL CHECK (private_key_sealed LIKE 'v1.%'),
  status              text NOT NULL CHECK (status IN ('active', 'retired', 'pending')),
  serial_hex          text,
  not_before          timestamptz,
  not_after           timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  retired_at          timestamptz,
  CHECK ((status = 'pending') = (certificate_pem IS NULL))
);
CREATE INDEX IF NOT EXISTS ca_certificates_issuer ON ca_certificates (issuer_id);
CREATE INDEX IF NOT EXISTS ca_certificates_parent ON ca_certificates (parent_id);

-- The CA an issuer issues under (its "issuing CA"); null while it has none.
ALTER TABLE issuers ADD COLUMN IF NOT EXISTS issuing_ca_id text REFERENCES ca_certificates (id) ON DELETE SET NULL;

-- What each issuer issued: enough to revoke, serve OCSP "unknown" correctly, and audit.
CREATE TABLE IF NOT EXISTS issued_certificates (
  issuer_id           text NOT NULL REFERENCES issuers (id) ON DELETE RESTRICT,
  serial_hex          text NOT NULL CHECK (serial_hex ~ '^[0-9a-f]{1,40}$'),
  ca_id               text REFERENCES ca_certificates (id) ON DELETE RESTRICT,
  fingerprint_sha256  text NOT NULL,
  subject             text NOT NULL DEFAULT '',
  not_before          timestamptz NOT NULL,
  not_after           timestamptz NOT NULL,
  purpose             text NOT NULL DEFAULT 'leaf' CHECK (purpose IN ('leaf', 'ocsp_responder', 'ca')),
  created_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer_id, serial_hex)
);

CREATE TABLE IF NOT EXISTS revocations (
  issuer_id   text NOT NULL REFERENCES issuers (id) ON DELETE RESTRICT,
  serial_hex  text NOT NULL CHECK (serial_hex ~ '^[0-9a-f]{1,40}$'),
  reason      text NOT NULL,
  revoked_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer_id, serial_hex)
);

-- Baseline seeds applied once (the default local CA issuer): an operator who deletes what a seed
-- made does not see it come back on the next start.
CREATE TABLE IF NOT EXISTS baseline_seeds (
  name        text PRIMARY KEY,
  applied_at  timestamptz NOT NULL DEFAULT now()
);
