-- ADR 0067 amendment "Rate slots in buckets": acme_take_rate_slot read the limit-th newest event
-- of its key with OFFSET limit - 1, which walks every event of the key inside the window (an index
-- has no skip): 20,000 new orders an hour from one address (a cluster behind one egress address)
-- cost 7 ms a newOrder, under the key's advisory lock, so that address could not order faster
-- than about 140 a second. The slots are now counted per key in 60 buckets of a sixtieth of the
-- window (one row per key and bucket, at most 61 read per call, whatever the limit). A bucket
-- counts while any part of it is inside the window, so a slot frees when the whole bucket of the
-- limit-th newest event has left it: Retry-After is at most a sixtieth of the window later than
-- the event's own leaving, and never early. Failed validations keep their event rows
-- (acme_rate_events: recorded one by one, a small limit).
CREATE UNLOGGED TABLE IF NOT EXISTS acme_rate_buckets (
  key    text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 200),
  bucket timestamptz NOT NULL,
  count  integer NOT NULL CHECK (count > 0),
  PRIMARY KEY (key, bucket)
);
CREATE INDEX IF NOT EXISTS acme_rate_buckets_bucket_idx ON acme_rate_buckets (bucket);

-- Returns NULL when the slot was taken, else the end of the bucket holding the limit-th newest
-- event inside the window (whose leaving frees a slot). The advisory lock and the count end
-- together at the caller's commit, as before.
CREATE OR REPLACE FUNCTION acme_take_rate_slot(p_key text, p_since timestamptz, p_limit integer, p_at timestamptz)
RETURNS timestamptz
LANGUAGE plpgsql VOLATILE
SET search_path FROM CURRENT
AS $$
DECLARE
  width interval := (p_at - p_since) / 60;
  full_at timestamptz;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(p_key, 53));
  SELECT newest_first.bucket + width INTO full_at
    FROM (SELECT bucket, sum(count) OVER (ORDER BY bucket DESC) AS newer
            FROM acme_rate_buckets WHERE key = p_key AND bucket > p_since - width) newest_first
   WHERE newest_first.newer >= p_limit
   ORDER BY newest_first.bucket DESC LIMIT 1;
  IF full_at IS NULL THEN
    INSERT INTO acme_rate_buckets (key, bucket, count)
    VALUES (p_key, date_bin(width, p_at, timestamptz 'epoch'), 1)
    ON CONFLICT (key, bucket) DO UPDATE SET count = acme_rate_buckets.count + 1;
  END IF;
  RETURN full_at;
END
$$;
