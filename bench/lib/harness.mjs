// Shared by the benches under bench/: start processes, drive load with autocannon (TLS verified),
// account CPU per process group, and clean up whatever was created, in reverse order.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const { Client: PgClient } = require('pg');

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const log = (message) => process.stderr.write(`[bench] ${message}\n`);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Clean-up: everything that is created registers its undo here; it runs in reverse order in the
// finally block, and on SIGINT/SIGTERM of the bench itself.
// ---------------------------------------------------------------------------------------------
export const cleanups = [];
let cleaning;
export function cleanup() {
  cleaning ??= (async () => {
    while (cleanups.length) {
      const [label, undo] = cleanups.pop();
      try {
        await undo();
      } catch (error) {
        log(`clean-up of ${label} failed: ${error.message}`);
      }
    }
  })();
  return cleaning;
}
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
]) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(code));
  });
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** One request, no connection reuse; HTTPS requests verify the server against `ca` and need TLS 1.3. */
export function fetchOnce(url, { method = 'GET', headers = {}, body, ca, timeoutMs = 3000 } = {}) {
  return new Promise((resolveResponse, reject) => {
    const secure = url.startsWith('https:');
    const send = secure ? httpsRequest : httpRequest;
    const options = { method, headers, agent: false, timeout: timeoutMs };
    if (secure) Object.assign(options, { ca, minVersion: 'TLSv1.3', rejectUnauthorized: true });
    const req = send(url, options, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolveResponse({
          status: res.statusCode,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/**
 * Starts `node <execArgv> <script>` with only PATH plus `env` (like libs/testing's
 * startServiceProcess) and resolves once `isReady()` says so. The process is stopped by the
 * clean-up if the caller does not stop it first.
 */
export async function startProcess(label, script, env, isReady, { execArgv = [], timeoutMs = 45_000 } = {}) {
  if (!existsSync(script))
    throw new Error(`${script} is missing: run \`npm run build\` first (npm run bench does)`);
  const child = spawn(process.execPath, [...execArgv, script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk) => {
    output += chunk.toString();
    if (output.length > 256_000) output = output.slice(-128_000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
  let stopping;
  const proc = {
    label,
    child,
    pid: child.pid,
    output: () => output,
    running: () => child.exitCode === null && child.signalCode === null,
    stop() {
      stopping ??= (async () => {
        if (proc.running()) {
          child.kill('SIGTERM');
          const timedOut = await Promise.race([exited.then(() => false), sleep(15_000).then(() => true)]);
          if (timedOut && proc.running()) {
            log(`${label} ignored SIGTERM; killing it`);
            child.kill('SIGKILL');
          }
        }
        return exited;
      })();
      return stopping;
    },
  };
  cleanups.push([`process ${label}`, () => proc.stop()]);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.running())
      throw new Error(`${label} exited (${JSON.stringify(await exited)}) before it was ready:\n${output}`);
    if (await isReady(proc).catch(() => false)) return proc;
    if (Date.now() > deadline) throw new Error(`${label} was not ready within ${timeoutMs} ms:\n${output}`);
    await sleep(100);
  }
}

// CPU time per process, from /proc (Linux only; empty elsewhere).
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
export function procCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [Number(fields[11]) / CLK_TCK, Number(fields[12]) / CLK_TCK]; // utime, stime
  } catch {
    return undefined;
  }
}
export function pidsByComm(names) {
  const found = {};
  let entries = [];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return found;
  }
  for (const pid of entries) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (names.includes(comm)) (found[comm] ??= []).push(Number(pid));
    } catch {
      /* gone */
    }
  }
  return found;
}
export function machineTicks() {
  try {
    const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
    const [user, nice, system, idle, iowait, irq, softirq, steal] = cpu
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal: steal ?? 0 };
  } catch {
    return undefined;
  }
}
/**
 * CPU seconds per group of processes between start() and stop(); `benchmark` is this process
 * (autocannon). Also the whole machine's busy and stolen time, and what is left for processes that
 * are not ours ("other": other work on a shared machine makes the figures unreliable). nats-server
 * and postgres are counted whole, although other clients may use them too.
 */
export function cpuMeter(groups) {
  const snapshot = () => {
    const byGroup = {};
    const comm = pidsByComm(['nats-server', 'postgres']);
    const all = { ...groups(), 'nats-server': comm['nats-server'] ?? [], postgres: comm.postgres ?? [] };
    for (const [group, pids] of Object.entries(all)) {
      byGroup[group] = {};
      for (const pid of pids) byGroup[group][pid] = procCpuSeconds(pid);
    }
    const self = process.cpuUsage();
    byGroup.benchmark = { self: [self.user / 1e6, self.system / 1e6] };
    return { byGroup, machine: machineTicks(), at: process.hrtime.bigint() };
  };
  let before;
  return {
    start() {
      before = snapshot();
    },
    stop() {
      const after = snapshot();
      const wall = Number(after.at - before.at) / 1e9;
      const seconds = {};
      const kernel = {};
      let ours = 0;
      for (const [group, pids] of Object.entries(after.byGroup)) {
        let sum = 0;
        let sys = 0;
        for (const [pid, value] of Object.entries(pids)) {
          if (value === undefined) continue;
          const [user0, sys0] = before.byGroup[group]?.[pid] ?? [0, 0];
          sum += value[0] - user0 + (value[1] - sys0);
          sys += value[1] - sys0;
        }
        seconds[group] = round(sum, 2);
        kernel[group] = round(sys, 2);
        ours += sum;
      }
      // cpu_seconds is user + kernel time; kernel_cpu_seconds the kernel part of it.
      const result = { wall_seconds: round(wall, 2), cpu_seconds: seconds, kernel_cpu_seconds: kernel };
      if (before.machine && after.machine) {
        const busy = (after.machine.busy - before.machine.busy) / CLK_TCK;
        const idle = (after.machine.idle - before.machine.idle) / CLK_TCK;
        const steal = (after.machine.steal - before.machine.steal) / CLK_TCK;
        const capacity = busy + idle + steal;
        if (capacity > 0) {
          result.machine_busy_percent = round((100 * busy) / capacity, 1);
          result.machine_steal_percent = round((100 * steal) / capacity, 1);
          result.other_processes_cpu_seconds = round(Math.max(0, busy - ours), 2);
          result.other_processes_percent = round((100 * Math.max(0, busy - ours)) / capacity, 1);
        }
      }
      return result;
    },
  };
}

export const round = (value, digits = 2) =>
  value === undefined || value === null ? value : Number(value.toFixed(digits));
export const round1 = (value) => round(value, 1);
export const round3 = (value) => round(value, 3);

export function percentile(sorted, p) {
  if (sorted.length === 0) return undefined;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/**
 * One autocannon run. autocannon 8 opens its TLS sockets with `rejectUnauthorized: false`
 * hard-coded (lib/httpClient.js), so `tlsOptions.ca` alone would not verify anything. Each
 * connection is therefore checked here as it is established: it must be authorized against our
 * CA (chain and host name 127.0.0.1) and speak TLS 1.3, or it is destroyed and the run fails.
 * Also records each response's exact latency (autocannon's histogram keeps whole milliseconds).
 */
export async function cannon({
  title,
  url,
  method,
  headers,
  body,
  requests,
  connections,
  durationSeconds,
  overallRate,
  ca,
  verifyBody,
}) {
  const tls = { verified: 0, failures: [] };
  const latencies = [];
  const secure = url.startsWith('https:');
  const setupClient = (client) => {
    client.on('response', (_status, _bytes, durationMs) => latencies.push(durationMs));
    if (!secure) return;
    if (typeof client._connect !== 'function')
      throw new Error('autocannon client has no _connect: cannot verify TLS');
    const connect = client._connect;
    client._connect = function verifiedConnect(...args) {
      const result = connect.apply(this, args);
      const socket = this.conn;
      socket.once('secureConnect', () => {
        const protocol = socket.getProtocol();
        if (!socket.authorized || protocol !== 'TLSv1.3') {
          tls.failures.push(
            socket.authorizationError ? String(socket.authorizationError) : `protocol ${protocol}`,
          );
          socket.destroy(new Error(`TLS verification failed: ${socket.authorizationError ?? protocol}`));
        } else {
          tls.verified++;
        }
      });
      return result;
    };
  };
  const options = {
    title,
    url,
    headers,
    connections,
    duration: durationSeconds,
    timeout: 10,
    setupClient,
  };
  if (overallRate) options.overallRate = overallRate;
  if (method) options.method = method;
  if (body !== undefined) options.body = body;
  if (requests) options.requests = requests; // cycled through by every connection
  if (secure) options.tlsOptions = { ca, minVersion: 'TLSv1.3' };
  if (verifyBody) options.verifyBody = verifyBody;
  const result = await autocannon(options);
  latencies.sort((a, b) => a - b);
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]),
  );
  const completed = result.requests.total;
  return {
    title,
    url,
    connections: result.connections,
    overall_rate: overallRate ?? null,
    duration_seconds: result.duration,
    requests_total: completed,
    rps_avg: round(result.requests.average, 1),
    rps_completed_over_duration: round(completed / result.duration, 1),
    rps_stddev: round(result.requests.stddev, 1),
    latency_ms: {
      // autocannon's own figures (whole milliseconds; coordinated-omission corrected when rate-limited)
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      avg: round(result.latency.average, 3),
    },
    latency_ms_exact: {
      // every response's own latency, sub-millisecond, no correction
      p50: round(percentile(latencies, 50), 3),
      p90: round(percentile(latencies, 90), 3),
      p99: round(percentile(latencies, 99), 3),
      p999: round(percentile(latencies, 99.9), 3),
      max: round(latencies.at(-1), 3),
    },
    ...(overallRate
      ? {
          latency_ms_corrected: correctedPercentiles(latencies, 1000 / (overallRate / result.connections)),
        }
      : {}),
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    status_codes: statusCodes,
    tls_connections_verified: secure ? tls.verified : null,
    tls_failures: tls.failures,
  };
}

/**
 * Percentiles of `sorted` (ms) corrected for coordinated omission as HdrHistogram's
 * recordValueWithExpectedInterval does: a response slower than the interval at which its
 * connection was due to send (`intervalMs`) also counts the requests that would have waited
 * behind it, at value - interval, value - 2 * interval, ... down to the interval. autocannon 8
 * passes `Math.ceil(1 / rate)` as that interval, seconds for a histogram in milliseconds (1 ms
 * where 100 req/s per connection means 10 ms), so its own figure counts every response about as
 * many times as it took milliseconds; this is the same correction with the interval in ms.
 */
export function correctedPercentiles(sorted, intervalMs) {
  const values = [...sorted];
  for (const value of sorted) {
    for (let missing = value - intervalMs; missing >= intervalMs; missing -= intervalMs) values.push(missing);
  }
  values.sort((a, b) => a - b);
  return {
    interval_ms: round(intervalMs, 3),
    synthetic_samples: values.length - sorted.length,
    p50: round(percentile(values, 50), 3),
    p90: round(percentile(values, 90), 3),
    p99: round(percentile(values, 99), 3),
    p999: round(percentile(values, 99.9), 3),
  };
}

/** Fails the bench unless every response was the expected status and every TLS connection verified. */
export function assertClean(run, { only200 = false } = {}) {
  const problems = [];
  if (run.errors) problems.push(`${run.errors} errors`);
  if (run.timeouts) problems.push(`${run.timeouts} timeouts`);
  if (run.non2xx) problems.push(`${run.non2xx} non-2xx responses`);
  if (run.mismatches) problems.push(`${run.mismatches} unexpected bodies`);
  if (only200) {
    const others = Object.keys(run.status_codes).filter((code) => code !== '200');
    if (others.length) problems.push(`status codes other than 200: ${JSON.stringify(run.status_codes)}`);
  }
  if (run.requests_total === 0) problems.push('no request completed');
  if (run.tls_failures.length)
    problems.push(`TLS verification failures: ${[...new Set(run.tls_failures)].join(', ')}`);
  if (run.tls_connections_verified !== null && run.tls_connections_verified < 1)
    problems.push('no TLS connection was verified');
  if (problems.length) throw new Error(`${run.title}: ${problems.join('; ')}`);
}

/** Warm-up (same load, results checked then discarded), then the measured run with CPU accounting. */
/** Transactions and rows the bench database saw (pg_stat_database; flushed about once a second). */
export async function dbCounters(databaseServerUrl, database) {
  const client = new PgClient({ connectionString: databaseServerUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT xact_commit + xact_rollback AS xacts, tup_returned + tup_fetched AS tuples FROM pg_stat_database WHERE datname = $1',
      [database],
    );
    return { xacts: Number(rows[0]?.xacts ?? 0), tuples: Number(rows[0]?.tuples ?? 0) };
  } finally {
    await client.end();
  }
}

export async function measure(
  spec,
  { only200 = false, groups = () => ({}), database, databaseServerUrl, warmupSeconds } = {},
) {
  log(`${spec.title}: warm-up ${warmupSeconds} s`);
  const warmup = await cannon({
    ...spec,
    title: `${spec.title} (warm-up)`,
    durationSeconds: warmupSeconds,
  });
  assertClean(warmup, { only200 });
  log(`${spec.title}: measuring ${spec.durationSeconds} s`);
  const dbBefore = database ? await dbCounters(databaseServerUrl, database) : undefined;
  const meter = cpuMeter(groups);
  const startUs = Number(process.hrtime.bigint() / 1000n);
  meter.start();
  const run = await cannon(spec);
  run.cpu = meter.stop();
  // CLOCK_MONOTONIC microseconds, the clock of V8 CPU profiles: profile-summary.mjs --results
  // uses this window to keep only the samples taken during this run.
  run.window_monotonic_us = { start: startUs, end: Number(process.hrtime.bigint() / 1000n) };
  if (database) {
    await sleep(1100); // let the server flush its statistics
    const dbAfter = await dbCounters(databaseServerUrl, database);
    run.postgres_transactions_per_request = round3(
      (dbAfter.xacts - dbBefore.xacts) / Math.max(1, run.requests_total),
    );
  }
  run.cpu_ms_per_request = Object.fromEntries(
    Object.entries(run.cpu.cpu_seconds).map(([group, seconds]) => [
      group,
      round3((1000 * seconds) / Math.max(1, run.requests_total)),
    ]),
  );
  assertClean(run, { only200 });
  log(
    `${spec.title}: ${run.rps_avg} req/s, p50 ${run.latency_ms.p50} ms, p99 ${run.latency_ms.p99} ms (exact p99 ${run.latency_ms_exact.p99} ms)`,
  );
  return run;
}

/**
 * Diagnostics: an evenly paced open-loop load (request i is due at start + i/rate), unlike
 * autocannon's overallRate, which lets each connection send its share of a second back to back at
 * the start of every second. Latency is measured from each request's scheduled time, so a stalled
 * server cannot hide queueing (no coordinated omission). Uses node:https with verification on.
 */
export async function pacedLatency(url, { rate, seconds, ca, headers, expectedBody }) {
  const agent = new HttpsAgent({ keepAlive: true, maxSockets: 256, ca, minVersion: 'TLSv1.3' });
  const one = () =>
    new Promise((resolveOne) => {
      const req = httpsRequest(url, { agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolveOne(res.statusCode === 200 && Buffer.concat(chunks).toString('utf8') === expectedBody),
        );
        res.on('error', () => resolveOne(false));
      });
      req.on('error', () => resolveOne(false));
      req.end();
    });
  const phase = async (phaseSeconds) => {
    const interval = 1000 / rate;
    const total = Math.round(phaseSeconds * rate);
    const latencies = [];
    const inflight = [];
    let failures = 0;
    let sent = 0;
    const start = performance.now();
    while (sent < total) {
      const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
      for (; sent < due; sent++) {
        const scheduled = start + sent * interval;
        inflight.push(
          one().then((ok) => {
            if (ok) latencies.push(performance.now() - scheduled);
            else failures++;
          }),
        );
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(inflight);
    const elapsed = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      target_rps: rate,
      achieved_rps: round1(latencies.length / elapsed),
      requests: total,
      failures,
      p50_ms: round3(percentile(latencies, 50)),
      p90_ms: round3(percentile(latencies, 90)),
      p99_ms: round3(percentile(latencies, 99)),
      max_ms: round3(latencies.at(-1)),
    };
  };
  try {
    await phase(Math.min(2, seconds));
    const result = await phase(seconds);
    if (result.failures) throw new Error(`paced run: ${result.failures} requests failed or were not 200`);
    return result;
  } finally {
    agent.destroy();
  }
}

/** A fresh database on the server, dropped by the clean-up. Returns its name and URL. */
export async function createBenchDatabase(databaseServerUrl) {
  const database = `certlane_bench_${randomBytes(5).toString('hex')}`;
  const admin = new PgClient({ connectionString: databaseServerUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${database}"`);
    // Diagnostics: every statement of the bench's database in the server log.
    if (process.env.BENCH_LOG_STATEMENTS === '1')
      await admin.query(`ALTER DATABASE "${database}" SET log_min_duration_statement = 0`);
  } finally {
    await admin.end();
  }
  cleanups.push([
    `database ${database}`,
    async () => {
      const client = new PgClient({ connectionString: databaseServerUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
        log(`dropped database ${database}`);
      } finally {
        await client.end();
      }
    },
  ]);
  const url = new URL(databaseServerUrl);
  url.pathname = `/${database}`;
  log(`created database ${database}`);
  return { database, url: url.toString() };
}

/** A self-signed P-256 certificate for localhost/127.0.0.1 in a temp dir removed by the clean-up. */
export function createBenchCertificate() {
  const tmp = mkdtempSync(join(os.tmpdir(), 'certlane-bench-'));
  cleanups.push([`temp dir ${tmp}`, () => rmSync(tmp, { recursive: true, force: true })]);
  const certPath = join(tmp, 'cert.pem');
  const keyPath = join(tmp, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { certPath, keyPath, ca: readFileSync(certPath, 'utf8') };
}

/** Median of numbers (undefined for none). */
export function median(values) {
  const sorted = values.filter((v) => typeof v === 'number').sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** A positive number from the environment, or `fallback` when unset; anything else stops the bench. */
export function positiveNumberEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}=${raw} is not a positive number`);
  return value;
}

/**
 * Runs a bench's `main` (which returns its summary with `pass`), always cleans up, and exits:
 * 0, 1 on failure, 2 when a target is missed and `enforceTargets` is set.
 */
export async function runBench(main, enforceTargets) {
  let exitCode = 0;
  try {
    const summary = await main();
    if (enforceTargets && !summary.pass) exitCode = 2;
  } catch (error) {
    log(`failed: ${error?.stack ?? error}`);
    exitCode = 1;
  } finally {
    await cleanup();
  }
  process.exit(exitCode);
}
