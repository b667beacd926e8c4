-- Fixture: a first migration, idempotent like every real one.
CREATE TABLE IF NOT EXISTS things (
  id   text PRIMARY KEY,
  name text NOT NULL
);
