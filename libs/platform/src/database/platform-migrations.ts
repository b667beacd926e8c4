/**
 * Tables every service schema has, owned by the platform rather than a service: the
 * transactional outbox (events waiting for the relay) and the inbox (event ids a consumer has
 * already processed). Applied before the service's own migrations, recorded like them.
 */
export const PLATFORM_MIGRATIONS: readonly { version: string; sql: string }[] = [
  {
    version: 'platform-0001_outbox_inbox',
    sql: `
CREATE TABLE IF NOT EXISTS outbox (
  seq          bigserial PRIMARY KEY,
  id           uuid NOT NULL UNIQUE,
  subject      text NOT NULL,
  envelope     jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text
);
CREATE INDEX IF NOT EXISTS outbox_unpublished_idx ON outbox (seq) WHERE published_at IS NULL;
CREATE TABLE IF NOT EXISTS inbox (
  consumer     text NOT NULL,
  event_id     uuid NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);`,
  },
];
