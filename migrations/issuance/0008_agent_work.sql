-- The agent work poll (ADR 0027): an agent's work is the open jobs whose agent_id is the agent
-- (index jobs_agent_open, migration 0004) plus the open jobs of the certificates whose agent_id is
-- the agent (index certificates_agent, then this one). Both sides are index scans over open jobs
-- only, however long a certificate's job history grows.
CREATE INDEX IF NOT EXISTS jobs_certificate_open ON jobs (certificate_id, created_at)
  WHERE status IN ('Pending', 'AwaitingCSR', 'Running');
