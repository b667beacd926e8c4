-- Demo data (SERVICE_DEMO_SEED=true only). Idempotent: runs on every start when enabled.
INSERT INTO renewal_policies (id, name, renewal_window_days, max_retries, retry_interval_seconds, alert_thresholds_days)
VALUES
  ('rp-demo-short-lived', 'Demo short-lived', 7, 5, 600, '{7,3,1,0}'),
  ('rp-demo-long-lived', 'Demo long-lived', 60, 2, 21600, '{60,30,14,7,0}')
ON CONFLICT DO NOTHING;
