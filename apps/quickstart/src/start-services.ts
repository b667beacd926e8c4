import { ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { SERVICE_NAMES, ServiceName } from '@certlane/contracts';
import { exitOnConfigError } from '@certlane/platform';
import { ensureDatabase } from './database';
import { applyDefaults, openDataDir } from './data-dir';
import { localPublicOrigin } from './public-origin';

const PROGRAM = 'certlane start:services';
const DIST_APPS = resolve(__dirname, '../..');

/**
 * `npm run start:services`: the eight services as separate processes against real Postgres
 * (SERVICE_DATABASE_URL, default the local server) and real NATS (SERVICE_NATS_URL, default the
 * local server). Secrets and the TLS certificate come from SERVICE_DATA_DIR as with `npm start`.
 * The gateway listens on SERVICE_PORT (default 8443); the other services on the following ports.
 * If any service exits, the others are stopped and the launcher exits non-zero.
 */
async function main(): Promise<void> {
  const env = process.env;
  const dataDir = await openDataDir(env.SERVICE_DATA_DIR || '.certlane-data').catch((error: unknown) =>
    exitOnConfigError(PROGRAM, error),
  );
  applyDefaults(env, {
    SERVICE_TLS_CERT_PATH: dataDir.certPath,
    SERVICE_TLS_KEY_PATH: dataDir.keyPath,
    SERVICE_AUTH_SECRET: dataDir.secrets.auth_secret,
    SERVICE_CONFIG_ENCRYPTION_KEY: dataDir.secrets.config_encryption_key,
    SERVICE_BOOTSTRAP_TOKEN: dataDir.secrets.bootstrap_token,
    SERVICE_REVOCATION_BASE_URL: localPublicOrigin(env),
    SERVICE_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/certlane',
    SERVICE_NATS_URL: 'nats://127.0.0.1:4222',
    SERVICE_DATABASE_POOL_SIZE: '5',
  });
  await ensureDatabase({ connectionString: env.SERVICE_DATABASE_URL as string });

  const basePort = Number(env.SERVICE_PORT || 8443);
  const children = new Map<ServiceName, ChildProcess>();
  let stopping = false;
  // Exits with `code`, or 1 when a service fails to shut down cleanly.
  const stopAll = (code: number) => {
    if (stopping) return;
    stopping = true;
    const exits = [...children.values()].map((child) =>
      child.exitCode !== null
        ? Promise.resolve(child.exitCode)
        : new Promise<number | null>((done) => {
            child.once('exit', (exitCode) => done(exitCode));
            child.kill('SIGTERM');
          }),
    );
    void Promise.all(exits).then((codes) => process.exit(codes.every((c) => c === 0) ? code : code || 1));
  };

  SERVICE_NAMES.forEach((service, index) => {
    const port = service === 'api-gateway' ? basePort : basePort + index;
    const child = spawn(process.execPath, [join(DIST_APPS, service, 'src', 'main.js')], {
      env: { ...env, SERVICE_PORT: String(port) },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.set(service, child);
    child.once('exit', (code, signal) => {
      if (stopping) return;
      process.stderr.write(`${PROGRAM}: ${service} exited (${signal ?? code}); stopping the others\n`);
      stopAll(code || 1);
    });
    process.stderr.write(`${PROGRAM}: ${service} pid ${child.pid} on https://localhost:${port}\n`);
  });
  process.once('SIGINT', () => stopAll(0));
  process.once('SIGTERM', () => stopAll(0));
}

main().catch((error: unknown) => {
  process.stderr.write(`${PROGRAM}: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
