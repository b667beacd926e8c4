import { randomBytes } from 'node:crypto';

/** A valid SERVICE_* environment for tests; override any variable per test. */
export function validServiceEnv(
  overrides: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    SERVICE_TLS_CERT_PATH: '/nonexistent/cert.pem',
    SERVICE_TLS_KEY_PATH: '/nonexistent/key.pem',
    SERVICE_AUTH_SECRET: randomBytes(24).toString('hex'),
    SERVICE_CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ...overrides,
  };
}
