-- Fixture: depends on 0001 (so it must run after it) and guards its ALTER.
ALTER TABLE things ADD COLUMN IF NOT EXISTS colour text NOT NULL DEFAULT 'grey';
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'things_colour_check'
                 AND conrelid = 'things'::regclass) THEN
    ALTER TABLE things ADD CONSTRAINT things_colour_check CHECK (colour <> '');
  END IF;
END $$;
