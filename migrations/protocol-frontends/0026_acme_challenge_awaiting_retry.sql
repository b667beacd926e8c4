-- RFC 8555 8.2 (ADR 0053 amendment, nineteenth stop): when a challenge's failed attempt was handed
-- back for a later one. The client's repeated response (a new POST of `{}`) takes that attempt at
-- once, no sooner than a second after the failure. Cleared when an attempt claims the challenge,
-- so a running attempt is never claimed twice.
ALTER TABLE acme_challenges ADD COLUMN IF NOT EXISTS awaiting_retry_since timestamptz;
