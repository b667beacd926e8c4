import { postgresConnection } from './postgres-connection';

const trust = { ca: ['ROOT'], rejectUnauthorized: true, minVersion: 'TLSv1.2' as const };

describe(postgresConnection.name, () => {
  it('connects without TLS when the URL asks for none', () => {
    expect(postgresConnection('postgres://u@db:5432/certlane', trust)).toEqual({
      connectionString: 'postgres://u@db:5432/certlane',
    });
  });

  it.each(['require', 'verify-ca', 'verify-full'])(
    'uses the outbound trust for sslmode=%s and drops the URL ssl parameters',
    (mode) => {
      const connection = postgresConnection(
        `postgres://u@db:5432/certlane?sslmode=${mode}&sslrootcert=/x&application_name=a`,
        trust,
      );
      expect(connection.ssl).toEqual({ ca: ['ROOT'], rejectUnauthorized: true });
      expect(connection.connectionString).toBe('postgres://u@db:5432/certlane?application_name=a');
    },
  );

  it('skips verification only when the insecure development switch is on', () => {
    expect(
      postgresConnection('postgres://db/c?sslmode=require', { ...trust, rejectUnauthorized: false }).ssl
        ?.rejectUnauthorized,
    ).toBe(false);
  });
});
