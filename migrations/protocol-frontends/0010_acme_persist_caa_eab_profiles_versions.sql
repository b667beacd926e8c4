-- Issue 19, ADR 0068: dns-persist-01 (draft-ietf-acme-dns-persist) offered per profile, per-profile
-- CAA identities, EAB keys bound to a profile, and renewals linked to the certificate they replace.
ALTER TABLE acme_challenges DROP CONSTRAINT IF EXISTS acme_challenges_type_check;
ALTER TABLE acme_challenges ADD CONSTRAINT acme_challenges_type_check
  CHECK (type IN ('http-01', 'dns-01', 'tls-alpn-01', 'dns-persist-01'));

ALTER TABLE acme_profiles
  -- Null: the server-wide SERVICE_ACME_CAA_IDENTITIES; empty: CAA not checked for this profile.
  ADD COLUMN IF NOT EXISTS caa_identities text[],
  ADD COLUMN IF NOT EXISTS dns_persist_01 boolean NOT NULL DEFAULT false;

-- Null: the key binds an account on any profile; else only through (and for) that profile.
ALTER TABLE acme_eab_keys
  ADD COLUMN IF NOT EXISTS profile_id text CHECK (profile_id ~ '^[a-z0-9][a-z0-9_-]{0,62}$');

-- certificate_id (0001) is the inventory certificate the ACME certificate is a version of;
-- replaced_by_id the ACME certificate that renewed it (RFC 9773 `replaces`, or the same
-- identifiers ordered again by the same account).
-- identifier_set: SHA-256 (base64url) of the order's sorted identifiers, so the certificate a
-- renewal without `replaces` renews is one index probe (null for certificates stored before).
ALTER TABLE acme_certificates
  ADD COLUMN IF NOT EXISTS replaced_by_id text REFERENCES acme_certificates (id),
  ADD COLUMN IF NOT EXISTS identifier_set text;
CREATE INDEX IF NOT EXISTS acme_certificates_renewable_idx
  ON acme_certificates (account_id, identifier_set, created_at) WHERE replaced_by_id IS NULL;
