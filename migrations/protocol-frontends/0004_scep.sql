-- SCEP profiles (issue 21, ADR 0059): one per `/scep/<path_id>` (`default` is `/scep`), with the
-- RA certificate and its key (sealed), how clients authorise (a challenge password kept only as a
-- salted hash, an MDM-signed challenge checked against stored trust anchors), whether a request
-- waits for approval, the mTLS trust bundle, and who owns what it issues.
CREATE TABLE IF NOT EXISTS scep_profiles (
  id                       uuid PRIMARY KEY,
  path_id                  text NOT NULL CHECK (path_id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  certificate_profile_id   text CHECK (char_length(certificate_profile_id) BETWEEN 1 AND 128),
  issuer_id                text CHECK (char_length(issuer_id) BETWEEN 1 AND 128),
  ra_certificate_pem       text NOT NULL,
  -- PKCS#8 of the RA key, sealed (SecretBox, label "protocol-frontends scep ra key v1", AAD the profile id).
  ra_key_sealed            text NOT NULL CHECK (ra_key_sealed LIKE 'v1.%'),
  ra_validity_days         integer NOT NULL DEFAULT 365 CHECK (ra_validity_days BETWEEN 1 AND 3650),
  challenge_password_hash  text CHECK (challenge_password_hash LIKE 'hmac-sha256$%'),
  legacy_algorithms        boolean NOT NULL DEFAULT false,
  approval_required        boolean NOT NULL DEFAULT false,
  mtls_enabled             boolean NOT NULL DEFAULT false,
  trust_bundle_path        text CHECK (trust_bundle_path ~ '^/'),
  trust_bundle_pem         text,
  mdm_enabled              boolean NOT NULL DEFAULT false,
  mdm_audience             text CHECK (char_length(mdm_audience) BETWEEN 1 AND 512),
  mdm_trust_path           text CHECK (mdm_trust_path ~ '^/'),
  mdm_trust_pem            text,
  mdm_trust_loaded_at      timestamptz,
  device_state_url         text CHECK (device_state_url ~ '^https://'),
  rate_limit_per_minute    integer NOT NULL DEFAULT 600 CHECK (rate_limit_per_minute BETWEEN 1 AND 100000),
  owner                    text,
  team                     text,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS scep_profiles_path_id_key ON scep_profiles (path_id);

-- Per-profile counters of every typed outcome (spec 6.4), one upsert per tick so replicas add up.
CREATE TABLE IF NOT EXISTS scep_profile_counters (
  profile_id uuid NOT NULL REFERENCES scep_profiles (id) ON DELETE CASCADE,
  outcome    text NOT NULL CHECK (outcome ~ '^[a-z_]+$'),
  count      bigint NOT NULL DEFAULT 0 CHECK (count >= 0),
  PRIMARY KEY (profile_id, outcome)
);

-- SCEP transactions (RFC 8894 3.2.1.1): one per profile and transactionID, so a PKCSReq sent again
-- (a client polling a PENDING request) or a GetCertInitial finds its request, and what was issued.
CREATE TABLE IF NOT EXISTS scep_transactions (
  profile_id       uuid NOT NULL REFERENCES scep_profiles (id) ON DELETE CASCADE,
  transaction_id   text NOT NULL CHECK (char_length(transaction_id) BETWEEN 1 AND 256),
  message_type     text NOT NULL CHECK (message_type IN ('pkcsreq', 'renewalreq')),
  status           text NOT NULL CHECK (status IN ('pending', 'issued', 'rejected')),
  csr_pem          text NOT NULL,
  principal        text NOT NULL,
  approval_id      text,
  certificate_pem  text,
  reject_reason    text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (profile_id, transaction_id)
);

-- MDM challenge ids already used (replay protection across replicas): kept until the token expires.
CREATE TABLE IF NOT EXISTS scep_mdm_challenges_used (
  profile_id uuid NOT NULL REFERENCES scep_profiles (id) ON DELETE CASCADE,
  jti        text NOT NULL CHECK (char_length(jti) BETWEEN 1 AND 256),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (profile_id, jti)
);
CREATE INDEX IF NOT EXISTS scep_mdm_challenges_used_expires_at_idx ON scep_mdm_challenges_used (expires_at);
