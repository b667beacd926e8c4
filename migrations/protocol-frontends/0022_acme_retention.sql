-- ACME retention (ADR 0073): the purge finds certificates that expired before its cutoff, and
-- authorizations that expired before it once no order names them, each by a range scan; a
-- certificate another certificate's replaced_by_id names waits until that one is gone.
CREATE INDEX IF NOT EXISTS acme_certificates_not_after_idx ON acme_certificates (not_after);
CREATE INDEX IF NOT EXISTS acme_certificates_replaced_by_idx
  ON acme_certificates (replaced_by_id) WHERE replaced_by_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS acme_authorizations_expires_at_idx ON acme_authorizations (expires_at);
