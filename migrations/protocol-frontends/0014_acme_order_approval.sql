-- Issue 19, ADR 0068 amendment: a finalize under a certificate profile requiring approval leaves the
-- order processing and waiting for this enrollment approval of issuance (ADR 0065); null: none.
ALTER TABLE acme_orders ADD COLUMN IF NOT EXISTS approval_id text;
