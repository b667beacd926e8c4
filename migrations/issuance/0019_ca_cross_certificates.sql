-- Cross-certificates of local CAs (ADR 0070): other certificates of a CA's subject and public key,
-- signed by another CA held here (parent_id) or by an external CA (imported; parent_id null unless
-- its issuer is held here). Active ones (retired_at null, currently valid) give the certificates
-- issued under the CA or its children alternate chains.
CREATE TABLE IF NOT EXISTS ca_cross_certificates (
  id                  text PRIMARY KEY CHECK (id ~ '^xc-[a-z0-9-]{1,80}$'),
  ca_id               text NOT NULL REFERENCES ca_certificates (id) ON DELETE RESTRICT,
  parent_id           text REFERENCES ca_certificates (id) ON DELETE RESTRICT,
  issuer              text NOT NULL,
  serial_hex          text NOT NULL CHECK (serial_hex ~ '^[0-9a-f]{1,40}$'),
  fingerprint_sha256  text NOT NULL,
  certificate_pem     text NOT NULL,
  not_before          timestamptz NOT NULL,
  not_after           timestamptz NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  retired_at          timestamptz,
  CHECK (parent_id IS NULL OR parent_id <> ca_id)
);
CREATE INDEX IF NOT EXISTS ca_cross_certificates_ca ON ca_cross_certificates (ca_id, created_at, id);
-- Issuance reads the active ones of the CAs on an issuing CA's chain with the issuer (one statement).
CREATE INDEX IF NOT EXISTS ca_cross_certificates_active ON ca_cross_certificates (ca_id)
  WHERE retired_at IS NULL;
