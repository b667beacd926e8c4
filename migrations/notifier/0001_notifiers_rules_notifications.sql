-- The notifier service's state (ADR 0056): notifiers (non-secret settings in clear, secrets
-- sealed with AES-256-GCM under SERVICE_CONFIG_ENCRYPTION_KEY, bound to the notifier id), routing
-- rules, owner and team contact addresses, and the notifications with their delivery state
-- (spec 2.11 and 3).
CREATE TABLE IF NOT EXISTS notifiers (
  id             text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name           text NOT NULL UNIQUE CHECK (char_length(name) BETWEEN 1 AND 255),
  kind           text NOT NULL CHECK (kind IN ('email', 'webhook', 'slack', 'teams', 'pagerduty', 'opsgenie')),
  settings       jsonb NOT NULL DEFAULT '{}'::jsonb,
  sealed_secrets text,
  enabled        boolean NOT NULL DEFAULT true,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS routing_rules (
  id           text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  enabled      boolean NOT NULL DEFAULT true,
  event_types  text[] NOT NULL DEFAULT '{}',
  min_severity text NOT NULL DEFAULT 'info' CHECK (min_severity IN ('info', 'warning', 'critical')),
  owner_ids    text[] NOT NULL DEFAULT '{}',
  team_ids     text[] NOT NULL DEFAULT '{}',
  environments text[] NOT NULL DEFAULT '{}',
  issuer_ids   text[] NOT NULL DEFAULT '{}',
  notifier_ids text[] NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

-- Contact addresses of owners and teams (owner_id and team_id of certificates).
CREATE TABLE IF NOT EXISTS contacts (
  kind       text NOT NULL CHECK (kind IN ('owner', 'team')),
  subject_id text NOT NULL CHECK (char_length(subject_id) BETWEEN 1 AND 255),
  addresses  text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (kind, subject_id)
);

-- One row per (event, notifier): dedup_key is unique, so a repeated event adds nothing. The
-- notifier is not a foreign key: a notification outlives its notifier, and the retry sweep moves
-- such a one to sent (spec 3, "failed, notifier missing").
CREATE TABLE IF NOT EXISTS notifications (
  id             uuid PRIMARY KEY,
  dedup_key      text NOT NULL UNIQUE,
  event_type     text NOT NULL,
  severity       text NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  certificate_id text,
  notifier_id    text NOT NULL,
  recipients     text[] NOT NULL DEFAULT '{}',
  title          text NOT NULL,
  event          jsonb NOT NULL,
  status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'dead', 'read')),
  retry_count    integer NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
  next_retry_at  timestamptz,
  last_error     text,
  sent_at        timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  CHECK (status <> 'failed' OR next_retry_at IS NOT NULL),
  CHECK (status <> 'dead' OR next_retry_at IS NULL)
);
-- The sweep's work: pending ones now, failed ones once their time has come.
CREATE INDEX IF NOT EXISTS notifications_due ON notifications (coalesce(next_retry_at, created_at))
  WHERE status IN ('pending', 'failed');
CREATE INDEX IF NOT EXISTS notifications_listing ON notifications (created_at DESC, id);
CREATE INDEX IF NOT EXISTS notifications_dead ON notifications (status) WHERE status = 'dead';
