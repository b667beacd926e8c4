-- Issue 19 item 7, ADR 0068: an ACME profile names the certificate profile (of issuance) whose rules
-- a finalize's CSR must meet and whose validity caps the profile's; null: none.
ALTER TABLE acme_profiles ADD COLUMN IF NOT EXISTS certificate_profile_id text;
