#!/usr/bin/env node
// Auth overhead bench (issue 3): GET /api/v1/renewal-policies/{id} through a gateway that
// authenticates a stored API key (asked of the auth service over NATS, then cached) and
// authorizes it, against the same call through a second gateway with auth disabled
// (SERVICE_AUTH_TYPE=none), both in front of the same issuance, measured alternately in the same
// run. See bench/README.md. Run with `npm run bench:auth` (builds first).
//
// Environment switches (all optional):
//   BENCH_ROUNDS=3  BENCH_DURATION_SECONDS=8  BENCH_WARMUP_SECONDS=2  BENCH_CONNECTIONS=50
//   BENCH_SEQUENTIAL_SECONDS=5   length of each 1-connection latency run
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres  BENCH_NATS_URL=nats://127.0.0.1:4222
//   BENCH_ENFORCE_TARGETS=1      exit 2 when a target is missed (default: report only)
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import {
  createBenchCertificate,
  createBenchDatabase,
  fetchOnce,
  freePort,
  log,
  measure,
  median,
  ROOT,
  round,
  round3,
  startProcess,
  positiveNumberEnv,
  runBench,
} from '../lib/harness.mjs';

const TARGET_P50_ADDED_MS = 1;
const TARGET_THROUGHPUT_COST = 0.15;
const POLICY_ID = 'rp-bench';

const num = positiveNumberEnv;

const settings = {
  rounds: Math.round(num('BENCH_ROUNDS', 3)),
  durationSeconds: num('BENCH_DURATION_SECONDS', 8),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 2),
  sequentialSeconds: num('BENCH_SEQUENTIAL_SECONDS', 5),
  connections: num('BENCH_CONNECTIONS', 50),
  enforceTargets: /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};

async function startServices(serviceEnv, ca) {
  const start = async (label, app, extraEnv = {}) => {
    const port = await freePort();
    const url = `https://127.0.0.1:${port}`;
    const proc = await startProcess(
      label,
      join(ROOT, 'dist', 'apps', app, 'src', 'main.js'),
      { ...serviceEnv, ...extraEnv, SERVICE_PORT: String(port) },
      async () => (await fetchOnce(`${url}/ready`, { ca })).status === 200,
    );
    return Object.assign(proc, { url });
  };
  const [auth, issuance] = await Promise.all([start('auth', 'auth'), start('issuance', 'issuance')]);
  const [secured, open] = await Promise.all([
    start('gateway-api-key', 'api-gateway'),
    start('gateway-no-auth', 'api-gateway', { SERVICE_AUTH_TYPE: 'none', SERVICE_DEMO_MODE_ACK: 'true' }),
  ]);
  return { auth, issuance, secured, open };
}

/** The policy to read and a stored viewer key; and proof that auth is really on for one and off for the other. */
async function prepare({ secured, open }, adminSecret, ca) {
  const call = (url, method, path, key, body) =>
    fetchOnce(`${url}${path}`, {
      method,
      ca,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
  const policy = await call(secured.url, 'POST', '/api/v1/renewal-policies', adminSecret, {
    name: 'Bench',
    max_retries: 3,
  });
  if (policy.status !== 201 || JSON.parse(policy.text).id !== POLICY_ID)
    throw new Error(`creating the policy answered ${policy.status} ${policy.text}`);
  const created = await call(secured.url, 'POST', '/api/v1/auth/api-keys', adminSecret, {
    name: 'bench-viewer',
    role_ids: ['r-viewer'],
  });
  if (created.status !== 201) throw new Error(`creating the key answered ${created.status} ${created.text}`);
  const key = JSON.parse(created.text).key;
  const path = `/api/v1/renewal-policies/${POLICY_ID}`;
  const withKey = await call(secured.url, 'GET', path, key);
  const withoutKey = await call(secured.url, 'GET', path);
  const noAuth = await call(open.url, 'GET', path);
  if (withKey.status !== 200 || withoutKey.status !== 401 || noAuth.status !== 200)
    throw new Error(
      `setup check failed: key ${withKey.status}, no key ${withoutKey.status}, auth disabled ${noAuth.status}`,
    );
  if (withKey.text !== noAuth.text) throw new Error('the two gateways answer different bodies');
  log(`policy ${POLICY_ID} and a stored r-viewer key ready; ${withKey.text.length}-byte answer`);
  return { key, path, expectedBody: withKey.text };
}

async function main() {
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  const { url: databaseUrl } = await createBenchDatabase(settings.databaseServerUrl);
  const { certPath, keyPath, ca } = createBenchCertificate();
  const adminSecret = randomBytes(24).toString('hex');
  const serviceEnv = {
    SERVICE_TLS_CERT_PATH: certPath,
    SERVICE_TLS_KEY_PATH: keyPath,
    SERVICE_AUTH_SECRET: adminSecret,
    SERVICE_CONFIG_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SERVICE_DATABASE_URL: databaseUrl,
    SERVICE_NATS_URL: settings.natsUrl,
    SERVICE_NATS_NAMESPACE: `bench_${randomBytes(5).toString('hex')}`,
    SERVICE_LOG_LEVEL: 'warn',
    SERVICE_LISTEN_ADDRESS: '127.0.0.1',
  };
  const services = await startServices(serviceEnv, ca);
  const { key, path, expectedBody } = await prepare(services, adminSecret, ca);

  const groups = () => ({
    'gateway-api-key': [services.secured.pid],
    'gateway-no-auth': [services.open.pid],
    auth: [services.auth.pid],
    issuance: [services.issuance.pid],
  });
  // CPU of the whole request path per request (both gateways are counted, but only the one
  // under load does work): robust to other load on the machine, unlike requests/s.
  const pathCpuMs = (run) =>
    round3(
      Object.entries(run.cpu_ms_per_request)
        .filter(([group]) => group !== 'benchmark')
        .reduce((sum, [, ms]) => sum + ms, 0),
    );
  const variants = {
    api_key: { url: `${services.secured.url}${path}`, headers: { authorization: `Bearer ${key}` } },
    no_auth: { url: `${services.open.url}${path}`, headers: {} },
  };
  const run = (variant, connections, durationSeconds) =>
    measure(
      {
        title: `${variant} ${connections === 1 ? 'sequential' : `${connections} connections`}`,
        ...variants[variant],
        connections,
        durationSeconds,
        ca,
        verifyBody: (body) => body === expectedBody,
      },
      { only200: true, groups, warmupSeconds: settings.warmupSeconds },
    );

  const rounds = [];
  for (let i = 0; i < settings.rounds; i++) {
    // Alternate which variant goes first so drift in the machine does not favour one side.
    const order = i % 2 === 0 ? ['api_key', 'no_auth'] : ['no_auth', 'api_key'];
    const result = { round: i + 1, sequential: {}, saturated: {} };
    for (const variant of order)
      result.sequential[variant] = await run(variant, 1, settings.sequentialSeconds);
    for (const variant of order)
      result.saturated[variant] = await run(variant, settings.connections, settings.durationSeconds);
    result.p50_added_ms = round3(
      result.sequential.api_key.latency_ms_exact.p50 - result.sequential.no_auth.latency_ms_exact.p50,
    );
    result.throughput_cost = round3(1 - result.saturated.api_key.rps_avg / result.saturated.no_auth.rps_avg);
    result.path_cpu_ms = {
      api_key: pathCpuMs(result.saturated.api_key),
      no_auth: pathCpuMs(result.saturated.no_auth),
    };
    // On CPU-bound cores, throughput falls by the share of CPU that auth adds to each request.
    result.cpu_throughput_cost = round3(1 - result.path_cpu_ms.no_auth / result.path_cpu_ms.api_key);
    result.other_load_percent = Math.max(
      ...['api_key', 'no_auth'].map((v) => result.saturated[v].cpu.other_processes_percent ?? 0),
    );
    result.steal_percent = Math.max(
      ...['api_key', 'no_auth'].map((v) => result.saturated[v].cpu.machine_steal_percent ?? 0),
    );
    log(
      `round ${i + 1}: p50 added ${result.p50_added_ms} ms, throughput cost ${round(100 * result.throughput_cost, 1)}%, CPU-based cost ${round(100 * result.cpu_throughput_cost, 1)}% (path CPU ${result.path_cpu_ms.api_key} vs ${result.path_cpu_ms.no_auth} ms/request; other load ${result.other_load_percent}%, steal ${result.steal_percent}%)`,
    );
    rounds.push(result);
  }

  const summary = {
    bench: 'auth-overhead',
    timestamp: new Date().toISOString(),
    rounds: settings.rounds,
    p50_sequential_ms_api_key: median(rounds.map((r) => r.sequential.api_key.latency_ms_exact.p50)),
    p50_sequential_ms_no_auth: median(rounds.map((r) => r.sequential.no_auth.latency_ms_exact.p50)),
    p50_added_ms: median(rounds.map((r) => r.p50_added_ms)),
    rps_api_key: median(rounds.map((r) => r.saturated.api_key.rps_avg)),
    rps_no_auth: median(rounds.map((r) => r.saturated.no_auth.rps_avg)),
    throughput_cost: median(rounds.map((r) => r.throughput_cost)),
    path_cpu_ms_api_key: median(rounds.map((r) => r.path_cpu_ms.api_key)),
    path_cpu_ms_no_auth: median(rounds.map((r) => r.path_cpu_ms.no_auth)),
    cpu_throughput_cost: median(rounds.map((r) => r.cpu_throughput_cost)),
    max_other_load_percent: Math.max(...rounds.map((r) => r.other_load_percent)),
    max_steal_percent: Math.max(...rounds.map((r) => r.steal_percent)),
    target_p50_added_ms: TARGET_P50_ADDED_MS,
    target_throughput_cost: TARGET_THROUGHPUT_COST,
    node_version: process.version,
    cpu_count: os.cpus().length,
  };
  summary.pass_p50 = summary.p50_added_ms < TARGET_P50_ADDED_MS;
  summary.pass_throughput = summary.throughput_cost < TARGET_THROUGHPUT_COST;
  summary.pass_cpu_throughput = summary.cpu_throughput_cost < TARGET_THROUGHPUT_COST;
  summary.pass = summary.pass_p50 && summary.pass_throughput;

  const resultsDir = join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `auth-overhead-${summary.timestamp.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ settings, summary, rounds }, null, 2));

  const yes = (ok) => (ok ? 'MET' : 'MISS');
  console.log(
    [
      `Auth overhead, ${settings.rounds} round(s), medians:`,
      `  sequential p50: api-key ${summary.p50_sequential_ms_api_key} ms, no auth ${summary.p50_sequential_ms_no_auth} ms -> added ${summary.p50_added_ms} ms (target < ${TARGET_P50_ADDED_MS} ms) ${yes(summary.pass_p50)}`,
      `  saturated (${settings.connections} connections): api-key ${summary.rps_api_key} req/s, no auth ${summary.rps_no_auth} req/s -> cost ${round(100 * summary.throughput_cost, 1)}% (target < ${100 * TARGET_THROUGHPUT_COST}%) ${yes(summary.pass_throughput)}`,
      `  CPU of the request path per request: api-key ${summary.path_cpu_ms_api_key} ms, no auth ${summary.path_cpu_ms_no_auth} ms -> CPU-based throughput cost ${round(100 * summary.cpu_throughput_cost, 1)}% ${yes(summary.pass_cpu_throughput)}`,
      `  other processes used up to ${summary.max_other_load_percent}% of the machine and the hypervisor stole up to ${summary.max_steal_percent}% during the saturated runs${summary.max_other_load_percent > 10 || summary.max_steal_percent > 10 ? ' (noisy: trust the CPU-based figure over req/s)' : ''}`,
      `Results: ${file}`,
      `BENCH_RESULT ${JSON.stringify(summary)}`,
    ].join('\n'),
  );
  return summary;
}

await runBench(main, settings.enforceTargets);
