-- SCEP (issue 21, ADR 0059 as amended): what a `/scep-mtls` request gets when its client
-- certificate's revocation status cannot be learned, as EST profiles have it (migration 0008).
ALTER TABLE scep_profiles ADD COLUMN IF NOT EXISTS client_revocation_unknown text NOT NULL DEFAULT 'soft-fail'
  CHECK (client_revocation_unknown IN ('soft-fail', 'hard-fail'));
