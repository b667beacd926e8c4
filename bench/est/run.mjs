#!/usr/bin/env node
// EST bench (issue 20): concurrent enrollments over mutual TLS against the real protocol-frontends
// and issuance processes (dist/), protocol-frontends' own listener (the quick start's path).
// Phases, each after a warm-up, with N keep-alive mTLS connections of one enrolled device:
//   1. baseline: `issuance.v1.issue-certificate` over the bus with the same P-256 CSRs (what EST
//      adds on top of issuance is the difference);
//   2. simpleenroll with P-256 CSRs (the issue's target: 500/s);
//   3. simpleenroll with RSA-2048 CSRs;
//   4. serverkeygen with RSA-2048 client CSRs (a fresh RSA-2048 key per request; a short phase).
// Every answer must be 200 and every TLS connection verified. See bench/README.md (## est).
// Run with `npm run bench:est`.
//
// Environment switches (all optional):
//   BENCH_DURATION_SECONDS=10  BENCH_WARMUP_SECONDS=10  BENCH_CONCURRENCY=256
//                              (connections: a fleet enrolling at once; the batches that
//                              concurrent enrollments share grow with it, see bench/README.md)
//   BENCH_KEYGEN_SECONDS=5  BENCH_KEYGEN_CONCURRENCY=32   the serverkeygen phase
//   BENCH_CSRS=256  BENCH_RSA_CSRS=64   distinct CSRs, used in turn
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres  BENCH_NATS_URL=nats://127.0.0.1:4222
//   BENCH_ENFORCE_TARGETS=1    exit 2 when the target is missed (default: report only)
//   BENCH_PHASES=a,b           run only these phases (names as in the results file)
//   BENCH_CPU_PROF=1           both services with --cpu-prof (bench/results/profiles-est-<ts>/)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import {
  cpuMeter,
  log,
  percentile,
  positiveNumberEnv,
  procCpuSeconds,
  round,
  round3,
  runBench,
} from '../lib/harness.mjs';
import { leanHttpsPool } from '../lib/lean-https.mjs';
import { benchSystem, busClient, RESULTS_DIR, startService } from '../lib/services.mjs';
import { makeCsrs, pki } from '../pki/common.mjs';

const TARGET_RATE = 500;
const num = positiveNumberEnv;
const settings = {
  durationSeconds: num('BENCH_DURATION_SECONDS', 10),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 10),
  keygenSeconds: num('BENCH_KEYGEN_SECONDS', 5),
  // Each serverkeygen request waits for an RSA-2048 key (~170 ms of CPU here): 256 at once would
  // wait ~20 s each, near the client's 60 s timeout on a slower machine.
  keygenConcurrency: Math.round(num('BENCH_KEYGEN_CONCURRENCY', 32)),
  concurrency: Math.round(num('BENCH_CONCURRENCY', 256)),
  csrCount: Math.round(num('BENCH_CSRS', 256)),
  rsaCsrCount: Math.round(num('BENCH_RSA_CSRS', 64)),
  enforceTargets: /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};

/** A device CA (the profile's trust bundle) and one device certificate from it, by openssl. */
function deviceIdentity() {
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-est-'));
  const path = (name) => join(dir, name);
  const openssl = (args) => execFileSync('openssl', args, { stdio: 'ignore' });
  openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.pem'),
    '-subj',
    '/CN=Bench Fleet CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=keyCertSign',
  ]);
  openssl([
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    path('device.key'),
    '-out',
    path('device.csr'),
    '-subj',
    '/CN=bench-device',
  ]);
  writeFileSync(path('device.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl([
    'x509',
    '-req',
    '-in',
    path('device.csr'),
    '-CA',
    path('ca.pem'),
    '-CAkey',
    path('ca.key'),
    '-set_serial',
    '7',
    '-days',
    '2',
    '-out',
    path('device.pem'),
    '-extfile',
    path('device.ext'),
  ]);
  return {
    trust: readFileSync(path('ca.pem'), 'utf8'),
    cert: readFileSync(path('device.pem')),
    key: readFileSync(path('device.key')),
  };
}

/** `concurrency` loops, each sending its next request when the previous one is answered. */
async function load(send, count, seconds, concurrency) {
  const latencies = [];
  let next = 0;
  let failure;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!failure && performance.now() < until) {
        const index = next++ % count;
        const t0 = performance.now();
        try {
          await send(index);
        } catch (error) {
          failure = error;
          break;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  if (failure) throw failure;
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    completed: latencies.length,
    per_second: round(latencies.length / elapsed, 1),
    p50_ms: round3(percentile(latencies, 50)),
    p99_ms: round3(percentile(latencies, 99)),
  };
}

/**
 * CPU seconds of the Postgres backends serving this bench's database (the `postgres` group counts
 * the whole server, which other work on a shared machine uses too).
 */
function benchBackendsCpu(databaseUrl) {
  const pids = execFileSync('psql', [
    databaseUrl,
    '-Atc',
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  ])
    .toString()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  const cpu = (pid) => procCpuSeconds(pid)?.reduce((a, b) => a + b, 0);
  const start = new Map(pids.map((pid) => [pid, cpu(pid)]));
  // A backend that has exited by the end is left out (its time is no longer readable).
  return () =>
    pids.reduce((sum, pid) => {
      const end = cpu(pid);
      return end === undefined || start.get(pid) === undefined ? sum : sum + end - start.get(pid);
    }, 0);
}

async function phase(name, send, count, seconds, groups, databaseUrl, concurrency = settings.concurrency) {
  log(`${name}: warm-up ${settings.warmupSeconds} s`);
  await load(send, count, settings.warmupSeconds, concurrency);
  log(`${name}: measuring ${seconds} s at concurrency ${concurrency}`);
  const meter = cpuMeter(groups);
  const backends = benchBackendsCpu(databaseUrl);
  meter.start();
  const result = await load(send, count, seconds, concurrency);
  result.concurrency = concurrency;
  result.cpu = meter.stop();
  result.cpu.cpu_seconds.postgres_bench_backends = round3(backends());
  result.cpu_ms_per_request = Object.fromEntries(
    Object.entries(result.cpu.cpu_seconds).map(([g, s]) => [
      g,
      round3((1000 * s) / Math.max(1, result.completed)),
    ]),
  );
  log(`${name}: ${result.per_second}/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms`);
  return result;
}

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  const system = await benchSystem(settings);
  log('starting issuance and protocol-frontends');
  const issuance = await startService(system, 'issuance', {
    cpuProfDir: process.env.BENCH_CPU_PROF ? join(RESULTS_DIR, `profiles-est-${stamp}`) : undefined,
  });
  const profileDir = process.env.BENCH_CPU_PROF ? join(RESULTS_DIR, `profiles-est-${stamp}`) : undefined;
  const frontends = await startService(system, 'protocol-frontends', {
    cpuProfDir: profileDir,
    // The mutual-TLS paths see a client certificate only when the listener asks for one.
    extraEnv: { SERVICE_TLS_REQUEST_CLIENT_CERT: 'true' },
  });
  const bus = await busClient(system, settings.natsUrl, 'bench-est');
  const device = deviceIdentity();
  await bus.request('protocol-frontends.v1.est-create-profile', {
    path_id: 'bench',
    auth_methods: ['mtls'],
    trust_bundle_pem: device.trust,
    serverkeygen_enabled: true,
    // The bench CSRs carry no AsymmetricDecryptKeyIdentifier: the key comes back as application/pkcs8.
    serverkeygen_unencrypted_allowed: true,
    rate_limit_per_minute: 100_000,
  });

  log(`generating ${settings.csrCount} P-256 and ${settings.rsaCsrCount} RSA-2048 CSRs`);
  const p256 = await makeCsrs(settings.csrCount, { algorithm: 'ECDSA', curve: 'P-256' });
  const rsa = await makeCsrs(settings.rsaCsrCount, { algorithm: 'RSA', size: 2048 });
  const base64 = (ders) => ders.map((der) => Buffer.from(der).toString('base64'));
  const bodies = { p256: base64(p256), rsa: base64(rsa) };
  const baselinePayloads = p256.map((der) => bus.encode({ csr_pem: pki.toPem('CERTIFICATE REQUEST', der) }));

  const pool = leanHttpsPool({
    origin: frontends.url,
    ca: system.ca,
    connections: settings.concurrency,
    timeoutMs: 60_000,
    cert: device.cert,
    key: device.key,
  });
  const enroll = (operation, list) => async (index) => {
    const answer = await pool.request({
      method: 'POST',
      path: `/.well-known/est-mtls/bench/${operation}`,
      headers: { 'Content-Type': 'application/pkcs10' },
      body: list[index],
    });
    if (answer.status !== 200)
      throw new Error(`${operation} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  };
  const baseline = async (index) => {
    const reply = bus.codec.decode(
      (
        await bus.nc.request(bus.subject('issuance.v1.issue-certificate'), baselinePayloads[index], {
          timeout: 30_000,
        })
      ).data,
    );
    if (!reply.ok) throw new Error(`issue-certificate answered ${JSON.stringify(reply.error)}`);
  };
  let imported = 0;
  const baselineWithImport = async (index) => {
    const issued = bus.codec.decode(
      (
        await bus.nc.request(bus.subject('issuance.v1.issue-certificate'), baselinePayloads[index], {
          timeout: 30_000,
        })
      ).data,
    );
    if (!issued.ok) throw new Error(`issue-certificate answered ${JSON.stringify(issued.error)}`);
    await bus.request('issuance.v1.create-certificate', {
      certificate_pem: issued.data.full_pem,
      source: 'EST',
      tags: { est_profile: 'bench', n: String(imported++) },
    });
  };
  let recorded = 0;
  const issueAndRecord = async (index) => {
    await bus.request('issuance.v1.issue-and-record', {
      csr_pem: pki.toPem('CERTIFICATE REQUEST', p256[index]),
      source: 'EST',
      tags: { est_profile: 'bench', n: String(recorded++) },
    });
  };
  const groups = () => ({ 'protocol-frontends': [frontends.pid], issuance: [issuance.pid] });

  // BENCH_PHASES=name,name runs only those phases (the others are reported as skipped).
  const only = (process.env.BENCH_PHASES ?? '').split(',').filter(Boolean);
  const skipped = { per_second: 0, p50_ms: 0, p99_ms: 0, cpu_ms_per_request: {}, cpu: {}, skipped: true };
  const run = (name, ...args) => (only.length === 0 || only.includes(name) ? phase(...args) : skipped);
  const phases = {
    baseline_issue_certificate_bus_p256: await run(
      'baseline_issue_certificate_bus_p256',
      'baseline: issue-certificate over the bus (P-256)',
      baseline,
      p256.length,
      settings.durationSeconds,
      groups,
      system.databaseUrl,
    ),
    baseline_issue_and_import_bus_p256: await run(
      'baseline_issue_and_import_bus_p256',
      'baseline: issue-certificate + create-certificate (inventory) over the bus',
      baselineWithImport,
      p256.length,
      settings.durationSeconds,
      groups,
      system.databaseUrl,
    ),
    baseline_issue_and_record_bus_p256: await run(
      'baseline_issue_and_record_bus_p256',
      'issue-and-record over the bus (what EST asks of issuance since ADR 0066)',
      issueAndRecord,
      p256.length,
      settings.durationSeconds,
      groups,
      system.databaseUrl,
    ),
    simpleenroll_mtls_p256: await run(
      'simpleenroll_mtls_p256',
      'simpleenroll over mTLS (P-256 CSRs)',
      enroll('simpleenroll', bodies.p256),
      p256.length,
      settings.durationSeconds,
      groups,
      system.databaseUrl,
    ),
    simpleenroll_mtls_rsa2048: await run(
      'simpleenroll_mtls_rsa2048',
      'simpleenroll over mTLS (RSA-2048 CSRs)',
      enroll('simpleenroll', bodies.rsa),
      rsa.length,
      settings.durationSeconds,
      groups,
      system.databaseUrl,
    ),
    serverkeygen_mtls_rsa2048: await run(
      'serverkeygen_mtls_rsa2048',
      'serverkeygen over mTLS (RSA-2048)',
      enroll('serverkeygen', bodies.rsa),
      rsa.length,
      settings.keygenSeconds,
      groups,
      system.databaseUrl,
      settings.keygenConcurrency,
    ),
  };
  pool.close();
  if (pool.tls.failures.length) throw new Error(`TLS failures: ${pool.tls.failures.join(', ')}`);

  const enrollRate = phases.simpleenroll_mtls_p256.per_second;
  const summary = {
    bench: 'est',
    timestamp: new Date().toISOString(),
    concurrency: settings.concurrency,
    duration_seconds: settings.durationSeconds,
    ...Object.fromEntries(
      Object.entries(phases).map(([name, r]) => [
        name,
        {
          per_second: r.per_second,
          p50_ms: r.p50_ms,
          p99_ms: r.p99_ms,
          cpu_ms_per_request: r.cpu_ms_per_request,
        },
      ]),
    ),
    // null when either phase was skipped (BENCH_PHASES): there is no ratio to report.
    est_share_of_baseline:
      phases.baseline_issue_certificate_bus_p256.skipped || phases.simpleenroll_mtls_p256.skipped
        ? null
        : round(enrollRate / phases.baseline_issue_certificate_bus_p256.per_second, 2),
    max_other_processes_cpu_percent: Math.max(
      ...Object.values(phases).map((r) => r.cpu.other_processes_percent ?? 0),
    ),
    target_simpleenroll_per_second: TARGET_RATE,
    pass: enrollRate >= TARGET_RATE,
    node_version: process.version,
    cpu_count: os.cpus().length,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `est-${stamp}.json`);
  writeFileSync(file, JSON.stringify({ settings, summary, phases }, null, 2));
  await frontends.stop();
  await issuance.stop();
  const line = (label, r) => `  ${label}: ${r.per_second}/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms`;
  console.log(
    [
      `EST over mutual TLS on protocol-frontends' listener, concurrency ${settings.concurrency}, ${settings.durationSeconds} s per phase:`,
      line('baseline issue-certificate over the bus (P-256)', phases.baseline_issue_certificate_bus_p256),
      line(
        'baseline issue + inventory import over the bus (what EST asks of issuance)',
        phases.baseline_issue_and_import_bus_p256,
      ),
      line(
        'issue-and-record over the bus (one request, group commit)',
        phases.baseline_issue_and_record_bus_p256,
      ),
      line(
        `simpleenroll P-256 (target >= ${TARGET_RATE}/s) ${summary.pass ? 'MET' : 'MISS'}`,
        phases.simpleenroll_mtls_p256,
      ),
      line('simpleenroll RSA-2048', phases.simpleenroll_mtls_rsa2048),
      line(
        `serverkeygen RSA-2048 (${settings.keygenSeconds} s, concurrency ${settings.keygenConcurrency})`,
        phases.serverkeygen_mtls_rsa2048,
      ),
      summary.est_share_of_baseline === null
        ? '  simpleenroll P-256 against the bare issuance rate: not measured (a phase was skipped)'
        : `  simpleenroll P-256 is ${summary.est_share_of_baseline} of the bare issuance rate`,
      `  other processes' CPU: up to ${summary.max_other_processes_cpu_percent}% of the machine`,
      `Results: ${file}`,
      `BENCH_RESULT ${JSON.stringify(summary)}`,
    ].join('\n'),
  );
  return summary;
}

await runBench(main, settings.enforceTargets);
