-- EST serverkeygen with a DecryptKeyIdentifier (RFC 7030 4.4.1.1; issue 20, ADR 0058 amendment: symmetric key-encryption keys):
-- AES-256 key-encryption keys an admin creates per EST profile (the key sealed at rest, shown
-- once). A revoked key stays, so its id keeps being refused.
CREATE TABLE IF NOT EXISTS est_key_encryption_keys (
  -- 16 random bytes, lowercase hex: the client's DecryptKeyIdentifier and the answer's kekid.
  id          text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{32}$'),
  profile_id  uuid NOT NULL REFERENCES est_profiles (id) ON DELETE CASCADE,
  -- SecretBox 'est key-encryption keys', the key id as associated data.
  key_sealed  text NOT NULL,
  description text CHECK (char_length(description) <= 200),
  created_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
CREATE INDEX IF NOT EXISTS est_key_encryption_keys_profile_idx
  ON est_key_encryption_keys (profile_id, created_at);
