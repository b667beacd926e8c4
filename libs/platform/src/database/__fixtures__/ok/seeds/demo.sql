-- Fixture: runs on every start when the demo seed is enabled.
INSERT INTO things (id, name, colour) VALUES ('demo-1', 'Demo thing', 'blue') ON CONFLICT DO NOTHING;
