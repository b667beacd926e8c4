-- ADR 0053 amendment (seventh stop): issuance.v1.revoke-certificate (ACME's revokeCert) revoked a
-- serial at its issuer and left the managed certificate it was the current version of Active,
-- while CRL and OCSP said revoked. It now moves that certificate to Revoked in the same
-- transaction; certificates revoked that way before are moved here, with the issuer's reason and
-- date. A certificate whose current version is not revoked (renewed since, or a hold released) is
-- left alone.
UPDATE certificates c
   SET status = 'Revoked', revoked_at = r.revoked_at, revocation_reason = r.reason, updated_at = now()
  FROM certificate_versions v
  JOIN revocations r ON r.issuer_id = v.issuer_id AND r.serial_hex = v.serial_number
 WHERE v.id = c.current_version_id
   AND v.certificate_id = c.id
   AND c.status <> 'Revoked';
