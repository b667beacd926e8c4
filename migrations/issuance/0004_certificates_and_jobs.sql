-- The certificate inventory (spec 2.2, 2.3), owners and teams, and jobs (spec 2.5). ADR 0024.
-- Every list filter of the API has an index that ends in `id`, so filtered pages are index scans
-- in list order. Archiving never deletes a row.
CREATE TABLE IF NOT EXISTS teams (
  id           text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9._-]{0,127}$'),
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  description  text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS teams_name_key ON teams (lower(name));

CREATE TABLE IF NOT EXISTS owners (
  id          text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9._-]{0,127}$'),
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  email       text NOT NULL DEFAULT '',
  team_id     text REFERENCES teams (id) ON DELETE RESTRICT,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS owners_team ON owners (team_id, id);

CREATE TABLE IF NOT EXISTS certificates (
  id                  text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9._-]{0,127}$'),
  name                text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  common_name         text NOT NULL CHECK (char_length(common_name) BETWEEN 1 AND 253),
  sans                text[] NOT NULL DEFAULT '{}',
  environment         text NOT NULL DEFAULT '',
  owner_id            text REFERENCES owners (id) ON DELETE RESTRICT,
  team_id             text REFERENCES teams (id) ON DELETE RESTRICT,
  issuer_id           text NOT NULL REFERENCES issuers (id) ON DELETE RESTRICT,
  renewal_policy_id   text NOT NULL REFERENCES renewal_policies (id) ON DELETE RESTRICT,
  -- Profiles arrive with the governance work; until then the id is kept as given.
  profile_id          text NOT NULL DEFAULT '',
  agent_id            text NOT NULL DEFAULT '',
  -- Unspecified provenance is the empty string (spec 2.2).
  source              text NOT NULL DEFAULT '' CHECK (source IN ('', 'EST', 'SCEP', 'API', 'Agent')),
  status              text NOT NULL DEFAULT 'Pending' CHECK (status IN
                        ('Pending', 'Active', 'Expiring', 'Expired', 'RenewalInProgress', 'Failed',
                         'Revoked', 'Archived')),
  key_algorithm       text NOT NULL DEFAULT 'ECDSA-P256' CHECK (key_algorithm IN
                        ('ECDSA-P256', 'ECDSA-P384', 'RSA-2048', 'RSA-3072', 'RSA-4096', 'Ed25519')),
  tags                jsonb NOT NULL DEFAULT '{}'::jsonb,
  not_before          timestamptz,
  expires_at          timestamptz,
  current_version_id  text,
  last_renewed_at     timestamptz,
  revoked_at          timestamptz,
  revocation_reason   text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS certificates_status ON certificates (status, id);
CREATE INDEX IF NOT EXISTS certificates_environment ON certificates (environment, id);
CREATE INDEX IF NOT EXISTS certificates_owner ON certificates (owner_id, id);
CREATE INDEX IF NOT EXISTS certificates_team ON certificates (team_id, id);
CREATE INDEX IF NOT EXISTS certificates_issuer ON certificates (issuer_id, id);
CREATE INDEX IF NOT EXISTS certificates_renewal_policy ON certificates (renewal_policy_id);
CREATE INDEX IF NOT EXISTS certificates_profile ON certificates (profile_id, id) WHERE profile_id <> '';
CREATE INDEX IF NOT EXISTS certificates_agent ON certificates (agent_id, id) WHERE agent_id <> '';
CREATE INDEX IF NOT EXISTS certificates_expires ON certificates (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE IF NOT EXISTS certificate_versions (
  id                  text PRIMARY KEY,
  certificate_id      text NOT NULL REFERENCES certificates (id) ON DELETE RESTRICT,
  version             integer NOT NULL CHECK (version >= 1),
  serial_number       text NOT NULL,
  fingerprint_sha256  text NOT NULL,
  key_algorithm       text NOT NULL,
  key_size            integer NOT NULL,
  issued_at           timestamptz NOT NULL,
  not_before          timestamptz NOT NULL,
  not_after           timestamptz NOT NULL,
  cert_pem            text NOT NULL,
  chain_pem           text NOT NULL DEFAULT '',
  -- Null when no CSR was kept (imports); readers return it as the empty string (spec 2.3).
  csr_pem             text,
  issuer_id           text NOT NULL,
  job_id              text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (certificate_id, version)
);
CREATE INDEX IF NOT EXISTS certificate_versions_serial ON certificate_versions (serial_number);
CREATE INDEX IF NOT EXISTS certificate_versions_issued ON certificate_versions (issued_at);

-- Private keys generated in server key-generation mode, sealed by the service's SecretBox with the
-- version id as associated data; kept for deployment, never returned by any route.
CREATE TABLE IF NOT EXISTS certificate_keys (
  version_id          text PRIMARY KEY REFERENCES certificate_versions (id) ON DELETE RESTRICT,
  certificate_id      text NOT NULL REFERENCES certificates (id) ON DELETE RESTRICT,
  private_key_sealed  text NOT NULL CHECK (private_key_sealed LIKE 'v1.%'),
  created_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS jobs (
  id              text PRIMARY KEY,
  type            text NOT NULL CHECK (type IN ('Issuance', 'Renewal', 'Deployment', 'Validation')),
  status          text NOT NULL CHECK (status IN
                    ('Pending', 'AwaitingCSR', 'AwaitingApproval', 'Running', 'Completed', 'Failed',
                     'Cancelled')),
  certificate_id  text NOT NULL REFERENCES certificates (id) ON DELETE RESTRICT,
  agent_id        text NOT NULL DEFAULT '',
  target_id       text NOT NULL DEFAULT '',
  attempts        integer NOT NULL DEFAULT 0,
  max_attempts    integer NOT NULL DEFAULT 3,
  last_error      text NOT NULL DEFAULT '',
  requested_by    text NOT NULL DEFAULT 'system',
  -- The version a completed issuance or renewal produced, or the version a deployment ships.
  version_id      text,
  scheduled_at    timestamptz NOT NULL DEFAULT now(),
  started_at      timestamptz,
  completed_at    timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS jobs_created ON jobs (created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS jobs_status ON jobs (status, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS jobs_type ON jobs (type, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS jobs_certificate ON jobs (certificate_id, created_at DESC);
CREATE INDEX IF NOT EXISTS jobs_agent_open ON jobs (agent_id, status)
  WHERE status IN ('Pending', 'AwaitingCSR', 'Running');
CREATE INDEX IF NOT EXISTS jobs_completed ON jobs (completed_at) WHERE completed_at IS NOT NULL;

-- Deployment verifications: did the endpoint serve the fingerprint the job deployed? History kept.
CREATE TABLE IF NOT EXISTS job_verifications (
  id                           bigserial PRIMARY KEY,
  job_id                       text NOT NULL REFERENCES jobs (id) ON DELETE RESTRICT,
  certificate_id               text NOT NULL,
  endpoint                     text NOT NULL,
  result                       text NOT NULL CHECK (result IN ('verified', 'mismatch', 'unreachable')),
  expected_fingerprint_sha256  text NOT NULL,
  served_fingerprint_sha256    text NOT NULL DEFAULT '',
  error                        text NOT NULL DEFAULT '',
  checked_at                   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS job_verifications_job ON job_verifications (job_id, checked_at DESC);
