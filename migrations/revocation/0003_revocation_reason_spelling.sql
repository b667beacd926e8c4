-- ADR 0037: reasons are stored as spec 2.16 spells them (caCompromise, aaCompromise, not RFC
-- 5280's ASN.1 cACompromise, aACompromise), and removeFromCRL is never stored: it releases a
-- certificateHold (the hold's row is deleted) instead of revoking.
ALTER TABLE revocations DROP CONSTRAINT IF EXISTS revocations_reason_check;
UPDATE revocations SET reason = 'caCompromise' WHERE reason = 'cACompromise';
UPDATE revocations SET reason = 'aaCompromise' WHERE reason = 'aACompromise';
-- Rows a revoke with removeFromCRL left before ADR 0037: no signed CRL listed them and OCSP said
-- good, only the JSON list showed them. Dropped, so every view agrees they are not revoked.
DELETE FROM revocations WHERE reason = 'removeFromCRL';
ALTER TABLE revocations ADD CONSTRAINT revocations_reason_check CHECK (reason IN ('unspecified',
  'keyCompromise', 'caCompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation',
  'certificateHold', 'privilegeWithdrawn', 'aaCompromise'));
