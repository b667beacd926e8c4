-- The four reserved sentinel agents (spec 2.4): server-side scanners, created at every start if
-- missing, never retirable (403, and a CHECK keeps them unretired), without an API key.
INSERT INTO agents (id, name, hostname, sentinel) VALUES
  ('server-scanner', 'Server scanner', 'control-plane', true),
  ('cloud-aws-sm', 'Cloud secret manager scanner (AWS)', 'control-plane', true),
  ('cloud-azure-sm', 'Cloud secret manager scanner (Azure)', 'control-plane', true),
  ('cloud-gcp-sm', 'Cloud secret manager scanner (GCP)', 'control-plane', true)
ON CONFLICT DO NOTHING;
