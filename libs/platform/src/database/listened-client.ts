import { Client, ClientConfig } from 'pg';

/**
 * The pg client every service pool makes (passed to pg-pool as `Client`). node-postgres emits
 * `error` on a client whose session the server ends, such as the FATAL 57P01 of a Postgres
 * restart, and Node kills the process when an `error` has no listener. A checked-out client can
 * get it between its owner's queries, when neither the pool nor TypeORM listens: under load, a
 * restart of Postgres then killed the issuance process (issuance-faults int-spec). This client
 * always has a listener, so such an error only leaves it unqueryable: its owner's next query
 * fails as a database outage and releasing it with that error drops it from the pool.
 */
export class ListenedClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', ignoreAfterOwnerSawIt);
  }
}

/** The owner learns of the failure from its next query; the pool from the release that follows. */
function ignoreAfterOwnerSawIt(): void {}
