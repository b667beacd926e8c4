-- Certificates the ACME server issues are recorded in the inventory with source ACME (issue 19).
ALTER TABLE certificates DROP CONSTRAINT IF EXISTS certificates_source_check;
ALTER TABLE certificates
  ADD CONSTRAINT certificates_source_check CHECK (source IN ('', 'EST', 'SCEP', 'API', 'Agent', 'ACME'));
