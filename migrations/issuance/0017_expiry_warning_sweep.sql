-- The expiry-warning sweep (issue 22's benchmark, ADR 0062). Its candidates are the certificates
-- expiring between 30 days ago and the largest alert threshold ahead, read in (expires_at, id)
-- keyset order: this index is that order, so each batch starts at its cursor in the index instead
-- of sorting, and Archived or Revoked certificates (never warned about) are not in it.
CREATE INDEX IF NOT EXISTS certificates_alert_window
  ON certificates (expires_at, id)
  WHERE expires_at IS NOT NULL AND status NOT IN ('Archived', 'Revoked');

-- The recorded thresholds keep their certificate's rows by a trigger instead of a foreign key:
-- the key's check took a KEY SHARE lock on the certificate for every recorded threshold, which
-- writes the certificate's row (and, after a checkpoint, its whole page into the WAL): about half
-- of the time recording the thresholds took. Certificates are archived, not deleted, by Certlane itself; a manual
-- DELETE still takes their recorded thresholds with them.
ALTER TABLE certificate_expiry_alerts DROP CONSTRAINT IF EXISTS certificate_expiry_alerts_certificate_id_fkey;

CREATE OR REPLACE FUNCTION certificate_expiry_alerts_cascade() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM certificate_expiry_alerts a USING deleted_certificates d WHERE a.certificate_id = d.id;
  RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS certificate_expiry_alerts_cascade ON certificates;
CREATE TRIGGER certificate_expiry_alerts_cascade AFTER DELETE ON certificates
  REFERENCING OLD TABLE AS deleted_certificates
  FOR EACH STATEMENT EXECUTE FUNCTION certificate_expiry_alerts_cascade();
