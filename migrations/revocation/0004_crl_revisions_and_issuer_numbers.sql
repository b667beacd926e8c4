-- CRL builds (ADR 0021 and 0023 amendments, ADR 0037 amendment): what makes a CA's CRL stale is
-- recorded in the transaction that changes its revocations, and CRL numbers are reserved per
-- issuer before the CRL is signed outside any transaction.

-- The last CRL number reserved per issuer: one sequence for every CA of the issuer (a re-keyed CA
-- with the same name never restarts at 1), and a number is taken before the signature is asked
-- for, so it is never reused even when the CRL it was taken for is never stored.
CREATE TABLE IF NOT EXISTS crl_numbers (
  issuer_id   text PRIMARY KEY CHECK (char_length(issuer_id) BETWEEN 1 AND 128),
  last_number bigint NOT NULL CHECK (last_number >= 1)
);

-- A counter per (issuer, CA) moved by every change to the CA's revocations (insert, a final reason
-- replacing a hold, a hold released, the CA resolved later), in the changing transaction, by the
-- triggers below; crl_state.built_revision is the counter the stored CRL was built from. A CRL is
-- stale while revision > built_revision, whatever the clocks say and whether or not the process
-- that made the change lived to rebuild it.
CREATE TABLE IF NOT EXISTS crl_changes (
  issuer_id text NOT NULL CHECK (char_length(issuer_id) BETWEEN 1 AND 128),
  ca_id     text NOT NULL CHECK (char_length(ca_id) BETWEEN 1 AND 128),
  revision  bigint NOT NULL CHECK (revision >= 1),
  PRIMARY KEY (issuer_id, ca_id)
);
ALTER TABLE crl_state ADD COLUMN IF NOT EXISTS built_revision bigint NOT NULL DEFAULT 0;

-- The trigger functions keep the migration's search_path (this schema), whatever the writer's is.
-- Revocations whose CA is not known yet (null) or never issued here ('') are on no CRL: skipped.
CREATE OR REPLACE FUNCTION crl_changes_on_insert() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO crl_changes AS c (issuer_id, ca_id, revision)
  SELECT DISTINCT issuer_id, ca_id, 1 FROM new_rows WHERE ca_id IS NOT NULL AND ca_id <> ''
  ON CONFLICT (issuer_id, ca_id) DO UPDATE SET revision = c.revision + 1;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION crl_changes_on_update() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO crl_changes AS c (issuer_id, ca_id, revision)
  SELECT issuer_id, ca_id, 1 FROM new_rows WHERE ca_id IS NOT NULL AND ca_id <> ''
  UNION
  SELECT issuer_id, ca_id, 1 FROM old_rows WHERE ca_id IS NOT NULL AND ca_id <> ''
  ON CONFLICT (issuer_id, ca_id) DO UPDATE SET revision = c.revision + 1;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION crl_changes_on_delete() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO crl_changes AS c (issuer_id, ca_id, revision)
  SELECT DISTINCT issuer_id, ca_id, 1 FROM old_rows WHERE ca_id IS NOT NULL AND ca_id <> ''
  ON CONFLICT (issuer_id, ca_id) DO UPDATE SET revision = c.revision + 1;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS revocations_crl_changes_insert ON revocations;
CREATE TRIGGER revocations_crl_changes_insert AFTER INSERT ON revocations
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION crl_changes_on_insert();
DROP TRIGGER IF EXISTS revocations_crl_changes_update ON revocations;
CREATE TRIGGER revocations_crl_changes_update AFTER UPDATE ON revocations
  REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crl_changes_on_update();
DROP TRIGGER IF EXISTS revocations_crl_changes_delete ON revocations;
CREATE TRIGGER revocations_crl_changes_delete AFTER DELETE ON revocations
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION crl_changes_on_delete();

-- Every CA with a CRL or revocations is rebuilt once after this migration: a hold released before
-- it (whose row is gone, so no clock could tell) leaves its CA's CRL at once.
INSERT INTO crl_changes (issuer_id, ca_id, revision)
SELECT issuer_id, ca_id, 1 FROM crl_state WHERE ca_id <> ''
UNION
SELECT issuer_id, ca_id, 1 FROM revocations WHERE ca_id IS NOT NULL AND ca_id <> ''
ON CONFLICT (issuer_id, ca_id) DO NOTHING;
