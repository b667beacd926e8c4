-- Digest runs (ADR 0062): one row per daily run (run_id = the UTC day) or on-demand send
-- (`manual-<uuid>`). The daily loop inserts its day in the transaction that queues the digests,
-- so across replicas and restarts each day is queued once; a crash before commit leaves the day
-- to the next tick.
CREATE TABLE IF NOT EXISTS digest_runs (
  run_id        text PRIMARY KEY CHECK (char_length(run_id) BETWEEN 1 AND 64),
  digests       integer NOT NULL DEFAULT 0 CHECK (digests >= 0),
  notifications integer NOT NULL DEFAULT 0 CHECK (notifications >= 0),
  requested_by  text,
  created_at    timestamptz NOT NULL DEFAULT now()
);
