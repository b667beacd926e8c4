-- Fixture: after the failing migration, so it must not run.
CREATE TABLE IF NOT EXISTS never_reached (id integer PRIMARY KEY);
