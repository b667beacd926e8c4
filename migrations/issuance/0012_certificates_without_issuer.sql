-- An imported certificate that no CA Certlane holds has issued is recorded under no issuer
-- (ADR 0043): issuer_id NULL, returned as '' like owner_id and team_id. Its versions keep
-- issuer_id '' (that column has no reference), and no revocation is sent for them.
ALTER TABLE certificates ALTER COLUMN issuer_id DROP NOT NULL;
