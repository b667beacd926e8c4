-- SCEP retention (ADR 0074): transactions are purged once they have not moved for the retention,
-- and the certificates GetCert finds once they expired that long ago, so both need their time
-- indexed. A certificate's notAfter travels with its transaction into scep_issued_certificates;
-- rows written before this migration have none until the purge reads it from their PEM.
ALTER TABLE scep_transactions ADD COLUMN IF NOT EXISTS certificate_not_after timestamptz;
ALTER TABLE scep_issued_certificates ADD COLUMN IF NOT EXISTS not_after timestamptz;
CREATE INDEX IF NOT EXISTS scep_transactions_updated_at_idx ON scep_transactions (updated_at);
CREATE INDEX IF NOT EXISTS scep_issued_certificates_not_after_idx ON scep_issued_certificates (not_after);
CREATE INDEX IF NOT EXISTS scep_issued_certificates_unread_not_after_idx
  ON scep_issued_certificates (issued_at) WHERE not_after IS NULL;
