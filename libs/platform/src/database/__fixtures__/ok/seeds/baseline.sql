-- Fixture: runs on every start.
INSERT INTO things (id, name) VALUES ('baseline-1', 'Baseline thing') ON CONFLICT DO NOTHING;
