-- cert_issuance approvals of external enrollments (ADR 0065): a CSR a protocol (SCEP, later EST and
-- ACME) holds for approval, with no job. On approval issuance issues it, records it in the inventory
-- (certificate_id) and keeps the certificate for the protocol to pick up.
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS enrollment jsonb;
-- One approval per protocol request (e.g. `scep:<profile id>:<transactionID>`): a resent request
-- finds the approval it opened.
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS enrollment_key text;
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS enrollment_expires_at timestamptz;
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS enrollment_certificate_pem text;
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS enrollment_serial_hex text;
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS enrollment_error text;
CREATE UNIQUE INDEX IF NOT EXISTS approvals_enrollment_key ON approvals (enrollment_key)
  WHERE enrollment_key IS NOT NULL;

ALTER TABLE approvals DROP CONSTRAINT IF EXISTS approvals_kind_fields;
ALTER TABLE approvals ADD CONSTRAINT approvals_kind_fields CHECK (
  (approval_kind = 'cert_issuance' AND enrollment IS NULL
     AND certificate_id IS NOT NULL AND job_id IS NOT NULL)
  OR (approval_kind = 'cert_issuance' AND enrollment IS NOT NULL AND job_id IS NULL
     AND enrollment_key IS NOT NULL AND enrollment_expires_at IS NOT NULL)
  OR (approval_kind = 'profile_edit' AND enrollment IS NULL AND certificate_id IS NULL AND job_id IS NULL
      AND profile_id IS NOT NULL AND payload IS NOT NULL)
);
