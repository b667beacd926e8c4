-- ADR 0069: an ACME profile may let newOrder ask for notBefore/notAfter (RFC 8555 7.4); the
-- order keeps what it asked for, shows it in its object (7.1.3) and finalize issues with it.
ALTER TABLE acme_profiles ADD COLUMN IF NOT EXISTS allow_requested_validity boolean NOT NULL DEFAULT false;
ALTER TABLE acme_orders ADD COLUMN IF NOT EXISTS not_before timestamptz;
ALTER TABLE acme_orders ADD COLUMN IF NOT EXISTS not_after timestamptz;
