-- Roles and their permissions (spec 5.3). The seven default roles are written by the auth
-- service at start from the catalogue in libs/contracts (builtin = true).
CREATE TABLE IF NOT EXISTS roles (
  id          text PRIMARY KEY CHECK (id ~ '^r-[a-z0-9-]{1,60}$'),
  description text NOT NULL DEFAULT '',
  builtin     boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS role_permissions (
  role_id    text NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  permission text NOT NULL,
  PRIMARY KEY (role_id, permission)
);
CREATE INDEX IF NOT EXISTS actor_roles_role_idx ON actor_roles (role_id);
