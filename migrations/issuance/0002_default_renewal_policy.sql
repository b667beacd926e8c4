-- The policy a fresh system renews with. A migration rather than a seed so that an operator who
-- edits or deletes it does not see it come back on the next start.
INSERT INTO renewal_policies (id, name, renewal_window_days, max_retries, retry_interval_seconds, alert_thresholds_days)
VALUES ('rp-default', 'Default', 30, 3, 3600, '{30,14,7,0}')
ON CONFLICT DO NOTHING;
