-- ACME rate limits in one round trip (issue 19; ADR 0067): takes one slot of a sliding-window
-- limit under an advisory lock on its key. Each statement of a volatile function reads a fresh
-- snapshot, so the count after the lock sees the event of the last holder (a single SQL
-- statement could not: its snapshot is taken before the lock). Returns NULL when the slot was
-- taken, else the limit-th newest event inside the window (whose leaving frees a slot). Run as
-- a statement of its own, the lock and the new event end together at its commit.
CREATE OR REPLACE FUNCTION acme_take_rate_slot(p_key text, p_since timestamptz, p_limit integer, p_at timestamptz)
RETURNS timestamptz
LANGUAGE plpgsql VOLATILE
SET search_path FROM CURRENT
AS $$
DECLARE
  full_at timestamptz;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(p_key, 53));
  SELECT at INTO full_at FROM acme_rate_events
   WHERE key = p_key AND at > p_since ORDER BY at DESC OFFSET p_limit - 1 LIMIT 1;
  IF full_at IS NULL THEN
    INSERT INTO acme_rate_events (key, at) VALUES (p_key, p_at);
  END IF;
  RETURN full_at;
END
$$;
