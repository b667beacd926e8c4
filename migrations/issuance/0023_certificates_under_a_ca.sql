-- ADR 0076: the inventory lists, renews and revokes the certificates under a CA (signed by it or by
-- a CA below it). They are found from the CA side: the leaves each CA of the tree signed, by this
-- index, then their versions by serial (certificate_versions_serial).
CREATE INDEX IF NOT EXISTS issued_certificates_leaf_ca ON issued_certificates (ca_id, issuer_id, serial_hex)
  WHERE purpose = 'leaf';
