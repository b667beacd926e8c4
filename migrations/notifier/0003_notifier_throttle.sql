-- Per-notifier rate slots shared by the replicas (ADR 0062): next_slot is the earliest time the
-- next send to the notifier may start. A send reserves its slot by moving next_slot one interval
-- on in one statement; a receiver's 429/503 Retry-After pushes it later for every replica.
-- Concurrency is held with transaction-scoped advisory locks, which a crash releases.
CREATE TABLE IF NOT EXISTS notifier_throttle (
  notifier_id text PRIMARY KEY,
  next_slot   timestamptz NOT NULL
);
