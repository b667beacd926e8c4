-- ADR 0023: the serials each CA issued, and CRLs, OCSP responders and revocations per CA of an
-- issuer (an issuer's retired CAs keep their CRL and OCSP).

-- Serials the local CA issued, from issuance.v1.certificate.issued (or asked of issuance with
-- issuance.v1.get-issued-certificate when the event has not arrived yet). OCSP answers `good`
-- only for these.
CREATE TABLE IF NOT EXISTS issued_certificates (
  issuer_id          text NOT NULL CHECK (char_length(issuer_id) BETWEEN 1 AND 128),
  serial_hex         text NOT NULL CHECK (serial_hex ~ '^[0-9a-f]{1,40}$'),
  ca_id              text NOT NULL CHECK (char_length(ca_id) BETWEEN 1 AND 128),
  not_before         timestamptz NOT NULL,
  not_after          timestamptz NOT NULL,
  fingerprint_sha256 text NOT NULL,
  issued_at          timestamptz NOT NULL,
  recorded_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer_id, serial_hex)
);

-- The CA that issued a revoked certificate: null until known (resolved by the CRL sweep), '' when
-- issuance says it never issued the serial (then it is on no CRL).
ALTER TABLE revocations ADD COLUMN IF NOT EXISTS ca_id text;
CREATE INDEX IF NOT EXISTS revocations_issuer_ca ON revocations (issuer_id, ca_id, serial_hex);

-- One CRL per (issuer, CA). A row from before this migration (ca_id '') was the issuer's issuing
-- CA at the time, which is not recorded: it is kept only as a floor for the next CRL numbers.
ALTER TABLE crl_state ADD COLUMN IF NOT EXISTS ca_id text NOT NULL DEFAULT '';
ALTER TABLE crl_state ALTER COLUMN ca_id DROP DEFAULT;
ALTER TABLE crl_state DROP CONSTRAINT IF EXISTS crl_state_pkey;
ALTER TABLE crl_state ADD PRIMARY KEY (issuer_id, ca_id);

-- One delegated OCSP responder per (issuer, CA). A responder from before is not tied to a CA: it
-- is dropped, and a new one is issued on first use.
ALTER TABLE ocsp_responders ADD COLUMN IF NOT EXISTS ca_id text NOT NULL DEFAULT '';
DELETE FROM ocsp_responders WHERE ca_id = '';
ALTER TABLE ocsp_responders ALTER COLUMN ca_id DROP DEFAULT;
ALTER TABLE ocsp_responders DROP CONSTRAINT IF EXISTS ocsp_responders_pkey;
ALTER TABLE ocsp_responders ADD PRIMARY KEY (issuer_id, ca_id);
