-- Fixture: shares its number with 0001_create_things.sql.
CREATE TABLE IF NOT EXISTS others (id text PRIMARY KEY);
