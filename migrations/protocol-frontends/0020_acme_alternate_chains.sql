-- RFC 8555 7.4.2 (ADR 0070): the other chains of an ACME certificate to other trust anchors
-- (through cross-certificates of its issuing CAs), each a full PEM like pem_chain (the leaf
-- first), served at cert/{id}/{n} and linked from cert/{id} with rel="alternate".
ALTER TABLE acme_certificates ADD COLUMN IF NOT EXISTS alternate_chains text[] NOT NULL DEFAULT '{}';
