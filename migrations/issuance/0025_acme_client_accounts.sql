-- ADR 0084: the ACME account of an `acme` issuer at its CA, one per issuer and directory URL. The
-- account key (PKCS#8 PEM) is sealed with the issuance secret box; the first replica whose INSERT
-- adds the row decides the key, and every replica registers with that key (newAccount is
-- idempotent for a key, RFC 8555 7.3.1).
CREATE TABLE IF NOT EXISTS acme_client_accounts (
  issuer_id      text NOT NULL REFERENCES issuers (id) ON DELETE CASCADE,
  directory_url  text NOT NULL,
  key_sealed     text NOT NULL,
  account_url    text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer_id, directory_url)
);
