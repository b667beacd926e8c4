-- draft-ietf-acme-dns-persist-02 4.2: the thumbprints of every key an account has held, so that a
-- hashed accounturi published before a key change still validates. A key change prepends the old
-- key's thumbprint (newest first); keys replaced before this migration are not known.
ALTER TABLE acme_accounts ADD COLUMN IF NOT EXISTS prior_thumbprints text[] NOT NULL DEFAULT '{}';
