-- The audit store (spec 6.1, docs/decisions/0016-audit-store.md): one row per audit event of
-- any service, append-only, each row chained to the previous one by SHA-256.
CREATE TABLE IF NOT EXISTS audit_events (
  seq            bigint PRIMARY KEY CHECK (seq > 0),
  event_id       text NOT NULL CHECK (char_length(event_id) BETWEEN 1 AND 200),
  service        text NOT NULL,
  action         text NOT NULL CHECK (char_length(action) BETWEEN 1 AND 200),
  event_category text NOT NULL CHECK (event_category IN ('cert_lifecycle', 'auth', 'config')),
  actor_id       text NOT NULL,
  resource_type  text NOT NULL,
  resource_id    text NOT NULL,
  outcome        text NOT NULL CHECK (outcome IN ('success', 'failure', 'denied')),
  request_id     text,
  details        jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(details) = 'object'),
  -- Millisecond precision, so the canonical form (toISOString) reproduces the stored value.
  occurred_at    timestamptz NOT NULL CHECK (occurred_at = date_trunc('milliseconds', occurred_at)),
  recorded_at    timestamptz NOT NULL CHECK (recorded_at = date_trunc('milliseconds', recorded_at)),
  prev_hash      text NOT NULL CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
  hash           text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$')
);
-- Redelivered envelopes are recognised by their id.
CREATE UNIQUE INDEX IF NOT EXISTS audit_events_event_id_key ON audit_events (event_id);
-- No fork: two rows can never name the same predecessor.
CREATE UNIQUE INDEX IF NOT EXISTS audit_events_prev_hash_key ON audit_events (prev_hash);
-- The list (newest first) and the export (keyset on occurred_at, seq) and their filters.
CREATE INDEX IF NOT EXISTS audit_events_time_idx ON audit_events (occurred_at, seq);
CREATE INDEX IF NOT EXISTS audit_events_category_time_idx ON audit_events (event_category, occurred_at, seq);
CREATE INDEX IF NOT EXISTS audit_events_actor_time_idx ON audit_events (actor_id, occurred_at, seq);
CREATE INDEX IF NOT EXISTS audit_events_resource_idx ON audit_events (resource_type, resource_id);

-- Append-only, enforced by the database: statement-level triggers, so even an UPDATE or DELETE
-- that matches no row is refused, and TRUNCATE too.
CREATE OR REPLACE FUNCTION audit_events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;
DROP TRIGGER IF EXISTS audit_events_no_update ON audit_events;
CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change();
DROP TRIGGER IF EXISTS audit_events_no_delete ON audit_events;
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change();
DROP TRIGGER IF EXISTS audit_events_no_truncate ON audit_events;
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change();
