-- Fixture: creates a table, then fails; neither the table nor the version may remain.
CREATE TABLE IF NOT EXISTS half_done (id integer PRIMARY KEY);
INSERT INTO half_done (id) VALUES (1);
INSERT INTO table_that_does_not_exist (id) VALUES (1);
