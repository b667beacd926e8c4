-- The default certificate list (no status filter) leaves Archived certificates out (ADR 0043);
-- `status=Archived` still lists them.
--
-- 1. Counts: every key but the status one counts only certificates that are not Archived, so the
--    total of the default list, with no filter or one, is still one key's sum; `status` keys count
--    every status (Archived included) for `status=...` lists and the dashboard.
CREATE OR REPLACE FUNCTION certificate_count_keys(
  status text, environment text, owner_id text, team_id text, issuer_id text, sign integer)
RETURNS TABLE (dimension text, value text, delta bigint) LANGUAGE sql IMMUTABLE AS $$
  SELECT k.dimension, k.value, sign::bigint
  FROM (VALUES ('', ''), ('status', status), ('environment', environment), ('owner_id', owner_id),
               ('team_id', team_id), ('issuer_id', issuer_id)) AS k(dimension, value)
  WHERE k.value IS NOT NULL AND (k.dimension = 'status' OR status <> 'Archived')
$$;

-- Recount under the new keys (writers wait: the triggers would otherwise add deltas of either kind).
LOCK TABLE certificates IN SHARE MODE;
DELETE FROM certificate_count_deltas;
INSERT INTO certificate_count_deltas (dimension, value, delta)
SELECT k.dimension, k.value, sum(k.delta)
FROM certificates r, certificate_count_keys(r.status, r.environment, r.owner_id, r.team_id, r.issuer_id, 1) k
GROUP BY k.dimension, k.value;

-- 2. The unfiltered default list reads its page ids from this partial index, index-only, as the
--    primary key served before. A filtered default list reads the filter's (column, id) index and
--    checks the status on the row.
CREATE INDEX IF NOT EXISTS certificates_not_archived ON certificates (id) WHERE status <> 'Archived';
