-- STARTTLS health checks (ADR 0057 amendment, nineteenth stop): the plain-text protocol a check
-- speaks before its TLS handshake (a mail server's certificate on 25/587 or 143); NULL for TLS
-- from the first byte, as every check made before.
ALTER TABLE health_checks ADD COLUMN IF NOT EXISTS starttls text
  CONSTRAINT health_checks_starttls_check CHECK (starttls IN ('smtp', 'imap'));
