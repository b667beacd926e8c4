-- Re-agreement to changed terms of service (RFC 8555 7.3.3; ADR 0053 amendment, fourteenth stop):
-- the URL of the terms an account agreed to. NULL for agreements recorded before this column,
-- which therefore count as agreement to other terms when re-agreement is asked.
ALTER TABLE acme_accounts ADD COLUMN IF NOT EXISTS terms_of_service_url text;
