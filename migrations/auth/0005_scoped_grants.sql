-- Scoped grants (spec 5.3, ADR 0019): a grant applies everywhere ('*') or within one scope
-- '<kind>:<id>'. The same role may be held globally and in several scopes.
ALTER TABLE actor_roles ADD COLUMN IF NOT EXISTS scope text NOT NULL DEFAULT '*';

DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_constraint WHERE conname = 'actor_roles_scope_check'
       AND conrelid = 'actor_roles'::regclass
  ) THEN
    ALTER TABLE actor_roles ADD CONSTRAINT actor_roles_scope_check CHECK (
      scope ~ '^(\*|(team|owner|profile|issuer|certificate|target|agent|tenant):[A-Za-z0-9][A-Za-z0-9._-]{0,127})$'
    );
  END IF;
  IF NOT EXISTS (
    SELECT 1 FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attname = 'scope'
     WHERE c.conname = 'actor_roles_pkey' AND c.conrelid = 'actor_roles'::regclass
       AND a.attnum = ANY (c.conkey)
  ) THEN
    ALTER TABLE actor_roles DROP CONSTRAINT IF EXISTS actor_roles_pkey;
    ALTER TABLE actor_roles ADD CONSTRAINT actor_roles_pkey PRIMARY KEY (actor_id, role_id, scope);
  END IF;
  -- Admin is all or nothing: r-admin is only ever granted globally.
  IF NOT EXISTS (
    SELECT 1 FROM pg_constraint WHERE conname = 'actor_roles_admin_global'
       AND conrelid = 'actor_roles'::regclass
  ) THEN
    ALTER TABLE actor_roles ADD CONSTRAINT actor_roles_admin_global CHECK (role_id <> 'r-admin' OR scope = '*');
  END IF;
END $$;
