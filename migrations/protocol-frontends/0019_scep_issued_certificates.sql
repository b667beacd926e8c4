-- SCEP GetCert (RFC 8894 3.3.4; ADR 0059 amendment, fourth stop): every certificate a profile
-- issued, by its issuer Name and serialNumber (DER). GetCert read them from the transaction row,
-- which keeps only a transaction's latest certificate: once a request issued under a
-- transactionID used before (scepclient's RenewalReq reuses its PKCSReq's) took the row over,
-- GetCert no longer found the first certificate. Rows are added with each issued transaction and
-- go with their profile.
CREATE TABLE IF NOT EXISTS scep_issued_certificates (
  profile_id         uuid NOT NULL REFERENCES scep_profiles (id) ON DELETE CASCADE,
  certificate_issuer bytea NOT NULL,
  certificate_serial bytea NOT NULL,
  certificate_pem    text NOT NULL,
  transaction_id     text NOT NULL,
  issued_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (profile_id, certificate_serial, certificate_issuer)
);
INSERT INTO scep_issued_certificates (profile_id, certificate_issuer, certificate_serial, certificate_pem, transaction_id, issued_at)
SELECT profile_id, certificate_issuer, certificate_serial, certificate_pem, transaction_id, updated_at
  FROM scep_transactions
 WHERE status = 'issued' AND certificate_serial IS NOT NULL AND certificate_issuer IS NOT NULL
   AND certificate_pem IS NOT NULL
ON CONFLICT DO NOTHING;
