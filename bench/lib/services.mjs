// Shared by the benches that run Certlane services: the environment of a fresh system (database,
// certificate, secrets, NATS namespace), starting built services from dist/, and a small bus
// client speaking the NatsBus wire format (request context + payload in, {ok, data|error} out).
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  cleanups,
  createBenchCertificate,
  createBenchDatabase,
  fetchOnce,
  freePort,
  log,
  ROOT,
  startProcess,
} from './harness.mjs';

const require = createRequire(import.meta.url);

/** A fresh database, certificate, secrets and NATS namespace; every service started shares them. */
export async function benchSystem({ databaseServerUrl, natsUrl }) {
  const { database, url: databaseUrl } = await createBenchDatabase(databaseServerUrl);
  const { certPath, keyPath, ca } = createBenchCertificate();
  const namespace = `bench_${randomBytes(5).toString('hex')}`;
  // Runs after the services stopped (clean-ups run last first): their streams would otherwise stay
  // on the NATS server, hundreds of them after a few days of runs.
  cleanups.push([`JetStream streams of ${namespace}`, () => deleteStreams(natsUrl, namespace)]);
  const env = {
    SERVICE_TLS_CERT_PATH: certPath,
    SERVICE_TLS_KEY_PATH: keyPath,
    SERVICE_AUTH_SECRET: randomBytes(24).toString('hex'),
    SERVICE_CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SERVICE_DATABASE_URL: databaseUrl,
    SERVICE_NATS_URL: natsUrl,
    SERVICE_NATS_NAMESPACE: namespace,
    SERVICE_LOG_LEVEL: 'warn',
    SERVICE_LISTEN_ADDRESS: '127.0.0.1',
  };
  return { database, databaseUrl, certPath, keyPath, ca, namespace, env };
}

/** Deletes the JetStream streams of a namespace (NatsBus names them `<NAMESPACE>_CERTLANE_<SERVICE>`). */
async function deleteStreams(natsUrl, namespace) {
  const { connect } = require('nats');
  const nc = await connect({ servers: natsUrl.split(','), name: 'bench-cleanup', noAsyncTraces: true });
  try {
    const jsm = await nc.jetstreamManager();
    const prefix = `${namespace.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_`;
    const names = [];
    for await (const stream of jsm.streams.list())
      if (stream.config.name.startsWith(prefix)) names.push(stream.config.name);
    for (const name of names) await jsm.streams.delete(name);
    log(`deleted ${names.length} JetStream streams of ${namespace}`);
  } finally {
    await nc.close();
  }
}

/**
 * Starts `dist/apps/<app>/src/main.js` on a free port and waits for /ready. `cpuProfDir` runs it
 * with --cpu-prof (the profile is written when the process exits on SIGTERM).
 */
export async function startService(system, app, { extraEnv = {}, cpuProfDir, label = app } = {}) {
  const port = await freePort();
  const url = `https://127.0.0.1:${port}`;
  const execArgv = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  if (cpuProfDir) {
    mkdirSync(cpuProfDir, { recursive: true });
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`, `--cpu-prof-name=${label}.cpuprofile`);
  }
  const proc = await startProcess(
    label,
    join(ROOT, 'dist', 'apps', app, 'src', 'main.js'),
    { ...system.env, ...extraEnv, SERVICE_PORT: String(port) },
    async () => (await fetchOnce(`${url}/ready`, { ca: system.ca })).status === 200,
    { execArgv },
  );
  return Object.assign(proc, { port, url });
}

/** A NATS client for the bus subjects of the system's namespace (no JetStream needed). */
export async function busClient(system, natsUrl, name = 'bench') {
  const { connect, JSONCodec } = require('nats');
  const codec = JSONCodec();
  const nc = await connect({ servers: natsUrl.split(','), name, noAsyncTraces: true });
  cleanups.push([`NATS client ${name}`, () => nc.close()]);
  let sequence = 0;
  return {
    nc,
    codec,
    /** The payload of a request as NatsBus sends it (encode once, send many times). */
    encode: (payload) =>
      codec.encode({ context: { request_id: `bench-${process.pid}-${++sequence}` }, payload }),
    subject: (subject) => `${system.namespace}.${subject}`,
    async request(subject, payload, timeoutMs = 30_000) {
      const reply = codec.decode(
        (
          await nc.request(
            `${system.namespace}.${subject}`,
            codec.encode({ context: { request_id: `bench-${process.pid}-${++sequence}` }, payload }),
            { timeout: timeoutMs },
          )
        ).data,
      );
      if (!reply.ok) throw new Error(`${subject} answered ${JSON.stringify(reply.error)}`);
      return reply.data;
    },
    close: () => nc.close(),
  };
}

export const RESULTS_DIR = join(ROOT, 'bench', 'results');
