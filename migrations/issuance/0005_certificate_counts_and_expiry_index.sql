-- The inventory at scale (ADR 0024, bench/README.md "## inventory").
--
-- 1. The expiry loop finds what its clock may move with range scans of this partial index: the
--    statuses the clock can change, by status, up to the widest renewal window.
CREATE INDEX IF NOT EXISTS certificates_clock_due ON certificates (status, expires_at)
  WHERE status IN ('Active', 'Expiring', 'Failed');

-- 2. The dashboard's expiry windows and timeline (stats.queries.ts) count live certificates by
--    expires_at: an index-only range scan of this partial index (its predicate is theirs).
CREATE INDEX IF NOT EXISTS certificates_live_expires ON certificates (expires_at)
  WHERE expires_at IS NOT NULL AND status NOT IN ('Archived', 'Revoked');

-- 3. Counts of certificates per list filter, for the `total` of GET /api/v1/certificates with no
--    filter or one: an exact COUNT(*) over a million rows costs 100+ ms even as a parallel
--    index-only scan. Statement-level triggers append signed deltas (insert-only: concurrent
--    writers never wait on a shared counter row); the count is the sum of the deltas of one
--    (dimension, value), which the compaction (issuance service, advisory lock) folds into one
--    row per key. dimension '' / value '' counts every certificate; NULL references are not
--    counted (no filter value matches them).
CREATE TABLE IF NOT EXISTS certificate_count_deltas (
  id         bigserial PRIMARY KEY,
  dimension  text NOT NULL CHECK (dimension IN ('', 'status', 'environment', 'owner_id', 'team_id', 'issuer_id')),
  value      text NOT NULL,
  delta      bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS certificate_count_deltas_key ON certificate_count_deltas (dimension, value) INCLUDE (delta);

-- The counted keys of a set of certificate rows, each with `sign`.
CREATE OR REPLACE FUNCTION certificate_count_keys(
  status text, environment text, owner_id text, team_id text, issuer_id text, sign integer)
RETURNS TABLE (dimension text, value text, delta bigint) LANGUAGE sql IMMUTABLE AS $$
  SELECT k.dimension, k.value, sign::bigint
  FROM (VALUES ('', ''), ('status', status), ('environment', environment), ('owner_id', owner_id),
               ('team_id', team_id), ('issuer_id', issuer_id)) AS k(dimension, value)
  WHERE k.value IS NOT NULL
$$;

-- The trigger functions keep the migration's search_path (this schema), whatever the writer's is.
CREATE OR REPLACE FUNCTION certificate_counts_on_insert() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO certificate_count_deltas (dimension, value, delta)
  SELECT k.dimension, k.value, sum(k.delta) FROM new_rows r, certificate_count_keys(r.status, r.environment, r.owner_id, r.team_id, r.issuer_id, 1) k
  GROUP BY k.dimension, k.value;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION certificate_counts_on_update() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  -- Only what changed: an update that moves no counted column writes nothing.
  INSERT INTO certificate_count_deltas (dimension, value, delta)
  SELECT dimension, value, sum(delta) FROM (
    SELECT k.* FROM new_rows r, certificate_count_keys(r.status, r.environment, r.owner_id, r.team_id, r.issuer_id, 1) k
    UNION ALL
    SELECT k.* FROM old_rows r, certificate_count_keys(r.status, r.environment, r.owner_id, r.team_id, r.issuer_id, -1) k
  ) changes
  GROUP BY dimension, value HAVING sum(delta) <> 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION certificate_counts_on_delete() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO certificate_count_deltas (dimension, value, delta)
  SELECT k.dimension, k.value, sum(k.delta) FROM old_rows r, certificate_count_keys(r.status, r.environment, r.owner_id, r.team_id, r.issuer_id, -1) k
  GROUP BY k.dimension, k.value;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS certificate_counts_insert ON certificates;
CREATE TRIGGER certificate_counts_insert AFTER INSERT ON certificates
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION certificate_counts_on_insert();
DROP TRIGGER IF EXISTS certificate_counts_update ON certificates;
CREATE TRIGGER certificate_counts_update AFTER UPDATE ON certificates
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
  EXECUTE FUNCTION certificate_counts_on_update();
DROP TRIGGER IF EXISTS certificate_counts_delete ON certificates;
CREATE TRIGGER certificate_counts_delete AFTER DELETE ON certificates
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION certificate_counts_on_delete();

-- Rows that existed before this migration (it runs in one transaction with the triggers).
INSERT INTO certificate_count_deltas (dimension, value, delta)
SELECT k.dimension, k.value, sum(k.delta)
FROM certificates r, certificate_count_keys(r.status, r.environment, r.owner_id, r.team_id, r.issuer_id, 1) k
WHERE NOT EXISTS (SELECT 1 FROM certificate_count_deltas)
GROUP BY k.dimension, k.value;
