import { EmbeddedPostgresFailure, explainEmbeddedPostgresFailure } from './embedded-postgres-failure';

const failure = (overrides: Partial<EmbeddedPostgresFailure>): EmbeddedPostgresFailure => ({
  step: 'start',
  error: undefined,
  log: '',
  port: 54329,
  databaseDir: '/srv/certlane/postgres',
  runsAs: 'postgres',
  ...overrides,
});

describe('explainEmbeddedPostgresFailure', () => {
  it('names the busy port and SERVICE_EMBEDDED_POSTGRES_PORT when the server log says the address is in use', () => {
    const log =
      '2026-01-01 LOG:  could not bind IPv4 address "127.0.0.1": Address already in use\n' +
      '2026-01-01 FATAL:  could not create any TCP/IP sockets\n';
    const line = explainEmbeddedPostgresFailure(failure({ log }));
    expect(line).toContain('127.0.0.1:54329');
    expect(line).toContain('already in use');
    expect(line).toContain('set SERVICE_EMBEDDED_POSTGRES_PORT');
    expect(line).not.toContain('\n');
  });

  it('says another Postgres (a quick start still running) holds the data directory, not to move it', () => {
    // Started twice on one data directory: the first still runs (and holds the port too).
    const log =
      '2026-11-30 18:45:27.420 UTC [20123] FATAL:  lock file "postmaster.pid" already exists\n' +
      '2026-11-30 18:45:27.420 UTC [20123] HINT:  Is another postmaster (PID 18491) running in data directory "/srv/certlane/postgres"?\n';
    expect(explainEmbeddedPostgresFailure(failure({ log }))).toBe(
      'the embedded Postgres data directory /srv/certlane/postgres is in use by another Postgres ' +
        '(PID 18491), most likely another Certlane quick start on the same SERVICE_DATA_DIR: stop it ' +
        '(Ctrl-C or kill -TERM its node process) and start again',
    );
  });

  it('names the directory, the user and SERVICE_DATA_DIR when initdb is denied access', () => {
    const error = new Error(
      'Postgres init script failed (code: 1, signal: null). ERROR OUTPUT: initdb: error: could not access directory "/srv/certlane/postgres": Permission denied\n',
    );
    const line = explainEmbeddedPostgresFailure(failure({ step: 'initialise', error }));
    expect(line).toBe(
      'the embedded Postgres cannot write its directory /srv/certlane/postgres as user postgres ' +
        '(initdb: error: could not access directory "/srv/certlane/postgres": Permission denied); ' +
        'set SERVICE_DATA_DIR to a directory that user can write',
    );
  });

  it('quotes the first fatal line of the log for any other cause and names both settings', () => {
    const log = 'LOG:  starting\nFATAL:  database files are incompatible with server\n';
    const line = explainEmbeddedPostgresFailure(failure({ log }));
    expect(line).toContain(
      'failed to start in /srv/certlane/postgres: FATAL:  database files are incompatible',
    );
    expect(line).toContain('SERVICE_DATA_DIR');
    expect(line).toContain('SERVICE_DATABASE_URL');
  });

  it('still gives one line when the library rejected with nothing and the log is empty', () => {
    expect(explainEmbeddedPostgresFailure(failure({}))).toContain('no reason given in its log');
  });
});
