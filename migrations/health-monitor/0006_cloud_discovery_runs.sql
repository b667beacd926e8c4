-- Cloud secret-manager discovery (issue 23; ADR 0063): one row per `cloud-<provider>-sm` sentinel
-- that is configured; the loop claims a due row FOR UPDATE SKIP LOCKED, so one replica runs it.
CREATE TABLE IF NOT EXISTS cloud_discovery_runs (
  sentinel           text PRIMARY KEY CHECK (sentinel IN ('cloud-aws-sm', 'cloud-azure-sm', 'cloud-gcp-sm')),
  next_run_at        timestamptz NOT NULL,
  last_started_at    timestamptz,
  last_finished_at   timestamptz,
  last_status        text CHECK (last_status IN ('running', 'completed', 'failed')),
  last_error         text,
  objects_found      integer NOT NULL DEFAULT 0,
  certificates_found integer NOT NULL DEFAULT 0
);
