-- SCEP GetCert (RFC 8894 3.3.4; ADR 0059): the issuer Name and serialNumber (both DER, as an
-- IssuerAndSerialNumber names them) of the certificate each transaction got, so a GetCert finds a
-- certificate this profile issued by them. Rows from before this migration have none and are not
-- found by GetCert.
ALTER TABLE scep_transactions ADD COLUMN IF NOT EXISTS certificate_issuer bytea;
ALTER TABLE scep_transactions ADD COLUMN IF NOT EXISTS certificate_serial bytea;
CREATE INDEX IF NOT EXISTS scep_transactions_issued_serial
  ON scep_transactions (profile_id, certificate_serial)
  WHERE certificate_serial IS NOT NULL;
