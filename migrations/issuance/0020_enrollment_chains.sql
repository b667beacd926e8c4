-- The chain an approved enrollment was issued with (ADR 0070 amendment): the issuing CA's chain
-- as the local CA built it, and one chain through each active cross-certificate, so that a
-- protocol answers the same chains as for a certificate issued without approval. Null for
-- enrollments issued before this migration (the protocols then fall back to the issuer's CAs).
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS enrollment_chain_pem text;
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS enrollment_alternate_chains text[];
