-- ACME profiles (issue 19 point 7; ADR 0060): each `/acme/profile/{id}/` and each newOrder
-- `profile` names one; `default` (the spec 4.11 shorthands) comes from the SERVICE_ACME_*
-- settings until an operator stores a row named `default`.
CREATE TABLE IF NOT EXISTS acme_profiles (
  id                        text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  description               text NOT NULL DEFAULT '' CHECK (char_length(description) <= 200),
  issuer_id                 text CHECK (char_length(issuer_id) BETWEEN 1 AND 128),
  validity_days             integer CHECK (validity_days BETWEEN 1 AND 3650),
  allow_ip                  boolean NOT NULL DEFAULT true,
  allowed_domains           text[] NOT NULL DEFAULT '{}',
  denied_domains            text[] NOT NULL DEFAULT '{}',
  external_account_required boolean NOT NULL DEFAULT false,
  new_orders_per_hour       integer NOT NULL DEFAULT 300 CHECK (new_orders_per_hour BETWEEN 1 AND 1000000),
  owner                     text CHECK (char_length(owner) BETWEEN 1 AND 128),
  team                      text CHECK (char_length(team) BETWEEN 1 AND 128),
  created_at                timestamptz NOT NULL DEFAULT now(),
  updated_at                timestamptz NOT NULL DEFAULT now()
);
