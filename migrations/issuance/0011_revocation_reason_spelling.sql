-- ADR 0037: reasons are stored as spec 2.16 spells them (caCompromise, aaCompromise, not RFC
-- 5280's ASN.1 cACompromise, aACompromise), and removeFromCRL is never stored: it releases a
-- certificateHold (the certificate's revocation fields are cleared, the serial's row deleted).
UPDATE certificates SET revocation_reason = 'caCompromise' WHERE revocation_reason = 'cACompromise';
UPDATE certificates SET revocation_reason = 'aaCompromise' WHERE revocation_reason = 'aACompromise';
UPDATE revocations SET reason = 'caCompromise' WHERE reason = 'cACompromise';
UPDATE revocations SET reason = 'aaCompromise' WHERE reason = 'aACompromise';

-- Before ADR 0037 a revoke with removeFromCRL marked the certificate Revoked while its CRL and
-- OCSP said it was not. They were right: the serials are released and the certificate goes back
-- to what its dates say (the expiry loop then moves an Active one inside its window to Expiring).
DELETE FROM revocations WHERE reason = 'removeFromCRL';
UPDATE certificates
   SET status = CASE
         WHEN status <> 'Revoked' THEN status
         WHEN expires_at IS NULL THEN 'Pending'
         WHEN expires_at <= now() THEN 'Expired'
         ELSE 'Active'
       END,
       revoked_at = NULL, revocation_reason = NULL, updated_at = now()
 WHERE revocation_reason = 'removeFromCRL';

ALTER TABLE certificates DROP CONSTRAINT IF EXISTS certificates_revocation_reason_check;
ALTER TABLE certificates ADD CONSTRAINT certificates_revocation_reason_check CHECK (revocation_reason IN
  ('unspecified', 'keyCompromise', 'caCompromise', 'affiliationChanged', 'superseded',
   'cessationOfOperation', 'certificateHold', 'privilegeWithdrawn', 'aaCompromise'));
ALTER TABLE revocations DROP CONSTRAINT IF EXISTS revocations_reason_check;
ALTER TABLE revocations ADD CONSTRAINT revocations_reason_check CHECK (reason IN
  ('unspecified', 'keyCompromise', 'caCompromise', 'affiliationChanged', 'superseded',
   'cessationOfOperation', 'certificateHold', 'privilegeWithdrawn', 'aaCompromise'));
