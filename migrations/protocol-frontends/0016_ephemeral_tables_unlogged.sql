-- ADR 0067 amendment "Unlogged ephemeral state": ACME nonces, ACME rate-limit events and the EST
-- and SCEP per-principal rate windows are written on nearly every protocol request and are worth
-- nothing after a crash (nonces expire within the hour; a rate window lasts a minute). Unlogged,
-- a transaction that writes only to them writes no WAL, so its commit does not wait for a WAL
-- flush. After a crash Postgres empties them: clients holding a nonce get badNonce and retry with
-- the fresh one it carries (RFC 8555 6.5), and rate windows start again from zero. They are not
-- replicated to standbys, which is the same as a crash for a promoted standby.
ALTER TABLE acme_nonces SET UNLOGGED;
ALTER TABLE acme_rate_events SET UNLOGGED;
ALTER TABLE est_rate_windows SET UNLOGGED;
ALTER TABLE scep_rate_windows SET UNLOGGED;
