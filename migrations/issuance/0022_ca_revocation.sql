-- ADR 0075: a CA certificate the local CA signed (a child CA under a parent held here) can be
-- revoked. The CA then has status 'revoked' with the date and reason, and its serial is on its
-- parent's CRL and answered revoked by the parent's OCSP responder.
ALTER TABLE ca_certificates DROP CONSTRAINT IF EXISTS ca_certificates_status_check;
ALTER TABLE ca_certificates ADD CONSTRAINT ca_certificates_status_check
  CHECK (status IN ('active', 'retired', 'pending', 'revoked'));
ALTER TABLE ca_certificates ADD COLUMN IF NOT EXISTS revoked_at timestamptz;
ALTER TABLE ca_certificates ADD COLUMN IF NOT EXISTS revocation_reason text;
ALTER TABLE ca_certificates DROP CONSTRAINT IF EXISTS ca_certificates_revoked_check;
ALTER TABLE ca_certificates ADD CONSTRAINT ca_certificates_revoked_check
  CHECK ((status = 'revoked') = (revoked_at IS NOT NULL AND revocation_reason IS NOT NULL));

-- Child CAs are now recorded among what their issuer issued when they are made (purpose 'ca',
-- ca_id the parent), so the parent's OCSP responder answers good for them and a revocation names
-- the parent's CRL. Child CAs made before are recorded here, with the SHA-256 of their DER.
INSERT INTO issued_certificates (issuer_id, serial_hex, ca_id, fingerprint_sha256, subject, not_before, not_after, purpose)
SELECT c.issuer_id, c.serial_hex, c.parent_id,
       encode(sha256(decode(regexp_replace(c.certificate_pem, '-----[A-Z ]+-----|\s', '', 'g'), 'base64')), 'hex'),
       c.subject, c.not_before, c.not_after, 'ca'
  FROM ca_certificates c
  JOIN ca_certificates p ON p.id = c.parent_id AND p.issuer_id = c.issuer_id
 WHERE c.certificate_pem IS NOT NULL AND c.serial_hex IS NOT NULL
   AND c.not_before IS NOT NULL AND c.not_after IS NOT NULL
ON CONFLICT DO NOTHING;

-- Cross-certificates signed by a CA held here are recorded the same way, under the signing CA's
-- issuer, and can be revoked: the cross-certificate is then out of alternate chains (retired_at)
-- and marked with the date and reason.
ALTER TABLE ca_cross_certificates ADD COLUMN IF NOT EXISTS revoked_at timestamptz;
ALTER TABLE ca_cross_certificates ADD COLUMN IF NOT EXISTS revocation_reason text;
ALTER TABLE ca_cross_certificates DROP CONSTRAINT IF EXISTS ca_cross_certificates_revoked_check;
ALTER TABLE ca_cross_certificates ADD CONSTRAINT ca_cross_certificates_revoked_check
  CHECK ((revoked_at IS NULL) = (revocation_reason IS NULL) AND (revoked_at IS NULL OR retired_at IS NOT NULL));

INSERT INTO issued_certificates (issuer_id, serial_hex, ca_id, fingerprint_sha256, subject, not_before, not_after, purpose)
SELECT p.issuer_id, x.serial_hex, x.parent_id, x.fingerprint_sha256, c.subject, x.not_before, x.not_after, 'ca'
  FROM ca_cross_certificates x
  JOIN ca_certificates p ON p.id = x.parent_id
  JOIN ca_certificates c ON c.id = x.ca_id
 WHERE p.issuer_id IS NOT NULL
ON CONFLICT DO NOTHING;
