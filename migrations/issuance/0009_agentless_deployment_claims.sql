-- Agentless deployments (ADR 0031): who claimed a Deployment job other than an agent. Set to
-- 'deployment-dispatch' when deployment-dispatch starts the job (Pending -> Running); an agent's
-- status report on such a job is refused, so an agent that also sees the job (its certificate
-- names the agent) cannot finish a deployment it does not run.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS claimed_by text NOT NULL DEFAULT '';
