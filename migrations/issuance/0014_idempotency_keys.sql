-- Idempotency-Key (ADR 0045): one row per actor, route and key. `status` is null while the first
-- attempt runs (it holds the key until `held_until`); then it and `body` are the stored answer.
CREATE TABLE IF NOT EXISTS idempotency_keys (
  actor_id     text NOT NULL,
  route        text NOT NULL,
  key          text NOT NULL,
  fingerprint  text NOT NULL,
  status       integer,
  body         jsonb,
  held_until   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (actor_id, route, key)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);
