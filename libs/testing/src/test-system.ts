import { readFileSync } from 'node:fs';
import { httpsRequest, HttpsResult } from './https-client';
import { collectDatabaseSecrets, recordSecrets } from './response-audit';
import { createTestDatabase, TestDatabase } from './test-database';
import { deleteNamespaceStreams, testNatsUrl, uniqueNamespace } from './test-nats';
import { createTlsFixture } from './tls-fixture';
import { eventually } from './eventually';
import { validServiceEnv } from './test-env';
import { ServiceProcess, startServiceProcess } from './service-process';

export interface TestSystem {
  /** The SERVICE_* environment every process got (SERVICE_AUTH_SECRET is an admin key). */
  env: Record<string, string | undefined>;
  /** PEM of the self-signed certificate the services serve. */
  ca: string;
  database: TestDatabase;
  services: Record<string, ServiceProcess>;
  /** Stops every process and drops the database. */
  stop(): Promise<void>;
}

/** Where a test system's Postgres and NATS are, when not the shared test servers. */
export interface TestSystemServers {
  /** A Postgres server URL (its `postgres` database); the system's database is created there. */
  databaseServerUrl?: string;
  natsUrl?: string;
}

/**
 * Built services started as separate processes on a fresh database, a NATS namespace of their
 * own and one TLS fixture, each waited for until /ready answers.
 */
export async function startTestSystem(
  label: string,
  services: string[],
  overrides: Record<string, string> = {},
  servers: TestSystemServers = {},
): Promise<TestSystem> {
  const database = await createTestDatabase(label, servers.databaseServerUrl);
  const tls = await createTlsFixture();
  const ca = readFileSync(tls.certPath, 'utf8');
  const env = validServiceEnv({
    SERVICE_TLS_CERT_PATH: tls.certPath,
    SERVICE_TLS_KEY_PATH: tls.keyPath,
    SERVICE_DATABASE_URL: database.url,
    SERVICE_NATS_URL: servers.natsUrl ?? testNatsUrl(),
    SERVICE_NATS_NAMESPACE: uniqueNamespace(label),
    SERVICE_LOG_LEVEL: 'warn',
    ...overrides,
  });
  const started = await Promise.allSettled(services.map((name) => startServiceProcess(name, env, { ca })));
  const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const byName: Record<string, ServiceProcess> = Object.fromEntries(running.map((s) => [s.name, s]));
  const stop = async () => {
    // A test may replace a service (a restart): stop what `services` holds now as well.
    await Promise.all([...new Set([...running, ...Object.values(byName)])].map((service) => service.stop()));
    recordSecrets(`${label} env`, [
      env.SERVICE_AUTH_SECRET,
      env.SERVICE_CONFIG_ENCRYPTION_KEY,
      env.SERVICE_BOOTSTRAP_TOKEN,
    ]);
    recordSecrets(`${label} database`, await collectDatabaseSecrets(database.url));
    await database.drop();
    // Best effort: a test's own NATS server may be gone by now, and its streams with it.
    await deleteNamespaceStreams(env.SERVICE_NATS_URL!, env.SERVICE_NATS_NAMESPACE!).catch(() => 0);
  };
  const failure = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) {
    await stop();
    throw failure.reason;
  }
  return { env, ca, database, services: byName, stop };
}

/** A request to the system's API gateway as its admin (SERVICE_AUTH_SECRET), with a JSON body if given. */
export function adminApiRequest(
  system: Pick<TestSystem, 'env' | 'ca' | 'services'>,
  method: string,
  path: string,
  body?: unknown,
): Promise<HttpsResult> {
  return apiRequestAs(system, system.env.SERVICE_AUTH_SECRET!, method, path, body);
}

/**
 * The newest job of a certificate once it ended (Completed or Failed), read through the API: a
 * remote CA's issuance may outlast the request that started it.
 */
export async function endedJobOf(
  system: Pick<TestSystem, 'env' | 'ca' | 'services'>,
  certificateId: string,
  timeoutMs = 60_000,
): Promise<{ status: string; last_error: string }> {
  let job: { status: string; last_error: string } | undefined;
  await eventually(
    async () => {
      const page = (
        await adminApiRequest(system, 'GET', `/api/v1/jobs?certificate_id=${certificateId}`)
      ).json() as {
        data: { status: string; last_error: string }[];
      };
      job = page.data[0];
      return job?.status === 'Completed' || job?.status === 'Failed';
    },
    `a job of certificate ${certificateId} ended`,
    timeoutMs,
  );
  return job as { status: string; last_error: string };
}

/** A request to the system's API gateway with an API key, with a JSON body if given. */
export function apiRequestAs(
  system: Pick<TestSystem, 'ca' | 'services'>,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<HttpsResult> {
  return httpsRequest(`${system.services['api-gateway'].url}${path}`, {
    method,
    ca: system.ca,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
