-- EST (issue 20; ADRs 0058, 0061): serverkeygen answers the private key without encryption beyond
-- TLS (RFC 7030 4.4.2 `application/pkcs8`) only on a profile that allows it; and what a
-- mutual-TLS request gets when its client certificate's revocation status cannot be learned.
ALTER TABLE est_profiles ADD COLUMN IF NOT EXISTS serverkeygen_unencrypted_allowed boolean NOT NULL DEFAULT false;
ALTER TABLE est_profiles ADD COLUMN IF NOT EXISTS client_revocation_unknown text NOT NULL DEFAULT 'soft-fail'
  CHECK (client_revocation_unknown IN ('soft-fail', 'hard-fail'));
