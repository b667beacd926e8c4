-- Fixture: misnamed (three digits), must be refused before anything runs.
ALTER TABLE things ADD COLUMN IF NOT EXISTS colour text;
