require('reflect-metadata');
// Runs in every Jest worker before the tests: pinned time zone and the servers tests talk to.
process.env.TZ = 'UTC';
process.env.TEST_DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
process.env.TEST_NATS_URL ||= 'nats://127.0.0.1:4222';
