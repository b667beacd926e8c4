-- The revocation service's own state (ADR 0021, "Revocation service"): the revocations it learnt
-- from issuance.v1.certificate.revoked, the last CRL built per issuer and the delegated OCSP
-- responder of each issuer (its private key sealed with AES-256-GCM, never stored in clear).
CREATE TABLE IF NOT EXISTS revocations (
  issuer_id   text NOT NULL CHECK (char_length(issuer_id) BETWEEN 1 AND 128),
  serial_hex  text NOT NULL CHECK (serial_hex ~ '^[0-9a-f]{1,40}$'),
  reason      text NOT NULL CHECK (reason IN ('unspecified', 'keyCompromise', 'cACompromise',
                'affiliationChanged', 'superseded', 'cessationOfOperation', 'certificateHold',
                'removeFromCRL', 'privilegeWithdrawn', 'aACompromise')),
  revoked_at  timestamptz NOT NULL,
  event_id    uuid NOT NULL,
  certificate_id text,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer_id, serial_hex)
);
CREATE UNIQUE INDEX IF NOT EXISTS revocations_event_id_key ON revocations (event_id);

-- One row per issuer whose CRL this service publishes; crl_number only ever grows.
CREATE TABLE IF NOT EXISTS crl_state (
  issuer_id   text PRIMARY KEY CHECK (char_length(issuer_id) BETWEEN 1 AND 128),
  crl_number  bigint NOT NULL CHECK (crl_number >= 1),
  this_update timestamptz NOT NULL,
  next_update timestamptz NOT NULL CHECK (next_update > this_update),
  der         bytea NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- The delegated OCSP responder of an issuer (RFC 6960 4.2.2.2): key generated here, certificate
-- issued by the issuing CA through issuance.v1.issue-ocsp-responder.
CREATE TABLE IF NOT EXISTS ocsp_responders (
  issuer_id          text PRIMARY KEY CHECK (char_length(issuer_id) BETWEEN 1 AND 128),
  sealed_private_key text NOT NULL,
  certificate_pem    text NOT NULL,
  not_after          timestamptz NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now()
);
