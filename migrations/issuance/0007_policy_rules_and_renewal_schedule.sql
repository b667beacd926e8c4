-- Policy rules (spec 2.6) and their violations (2.7), and what the renewal loop needs (ADR 0028).

-- `config` is text, not jsonb: a rule may hold JSON that does not parse (written as a string by
-- the API, or by hand), and evaluation then skips that rule only.
CREATE TABLE IF NOT EXISTS policy_rules (
  id           text PRIMARY KEY,
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  type         text NOT NULL CHECK (type IN
                 ('AllowedIssuers', 'AllowedDomains', 'RequiredMetadata', 'AllowedEnvironments',
                  'RenewalLeadTime', 'CertificateLifetime')),
  severity     text NOT NULL DEFAULT 'Warning' CHECK (severity IN ('Warning', 'Error', 'Critical')),
  config       text CHECK (config IS NULL OR char_length(config) <= 65536),
  enabled      boolean NOT NULL DEFAULT true,
  description  text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

-- One row per (rule, certificate) finding. An open violation has resolved_at NULL; at most one
-- is open per rule and certificate. Re-evaluation updates it, or resolves it when the rule
-- passes; resolved rows stay as history. The severity is the rule's, checked here too.
CREATE TABLE IF NOT EXISTS policy_violations (
  id                 text PRIMARY KEY,
  rule_id            text NOT NULL REFERENCES policy_rules (id) ON DELETE CASCADE,
  certificate_id     text NOT NULL REFERENCES certificates (id) ON DELETE CASCADE,
  severity           text NOT NULL CHECK (severity IN ('Warning', 'Error', 'Critical')),
  code               text NOT NULL,
  message            text NOT NULL,
  detected_at        timestamptz NOT NULL DEFAULT now(),
  last_evaluated_at  timestamptz NOT NULL DEFAULT now(),
  resolved_at        timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS policy_violations_open
  ON policy_violations (rule_id, certificate_id) WHERE resolved_at IS NULL;
CREATE INDEX IF NOT EXISTS policy_violations_rule_list
  ON policy_violations (rule_id, detected_at DESC, id DESC) WHERE resolved_at IS NULL;
CREATE INDEX IF NOT EXISTS policy_violations_certificate
  ON policy_violations (certificate_id) WHERE resolved_at IS NULL;

-- The renewal loop's query, per renewal policy: certificates the dates may make due, newest
-- expiry last. Only Active/Expiring rows are in it, so a certificate leaves it the moment its
-- renewal starts (RenewalInProgress), and the loop never reads the rest of the inventory.
CREATE INDEX IF NOT EXISTS certificates_renewal_due
  ON certificates (renewal_policy_id, expires_at)
  WHERE status IN ('Active', 'Expiring') AND expires_at IS NOT NULL;

-- Expiry warnings already sent: once per certificate, expiry date and threshold (a renewed
-- certificate has a new expiry date and gets its warnings again).
CREATE TABLE IF NOT EXISTS certificate_expiry_alerts (
  certificate_id  text NOT NULL REFERENCES certificates (id) ON DELETE CASCADE,
  expires_at      timestamptz NOT NULL,
  threshold_days  integer NOT NULL CHECK (threshold_days BETWEEN 0 AND 365),
  sent_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (certificate_id, expires_at, threshold_days)
);

-- How often the renewal loop has retried a failed job: every failure counts as an attempt, also
-- one before the job ran (attempts only counts runs), so max_retries bounds retries either way.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS retries integer NOT NULL DEFAULT 0;
