#!/usr/bin/env node
// Discovery bench (issue 23; ADR 0057, 0063). Two measurements against the built health-monitor:
//  1. scan: a network scan of 65,536 loopback addresses (127.77.0.0/16) on one port with 100 live
//     TLS listeners, triggered over the bus (health-monitor.v1.trigger-scan-target) at the
//     scanner's bounds (256 in flight, 10,000 connections/s); baseline: a bare TCP connect sweep of
//     the same addresses from this process at the same concurrency.
//  2. monitor: 10,000 health checks at a 60 s interval against the listeners; the lag of every
//     probe (checked_at minus its due time, phase = sha256(id) as the monitor computes it) over a
//     measured window after one warm-up interval, each probe assigned to the slot it was due in
//     (double probes and missed slots counted); baseline: a bare timer loop in this process doing
//     the same handshakes at the same rate, its own lag.
// Targets: the scan in under 60 s; monitor p99 lag under 5 s. See bench/README.md (## discovery).
// Run with `npm run bench:discovery`.
//
// Environment switches (all optional):
//   BENCH_LISTENERS=100  BENCH_CHECKS=10000  BENCH_WINDOW_SECONDS=60 (the measured monitor window)
//   BENCH_POOL_SIZE=10           the health monitor's SERVICE_DATABASE_POOL_SIZE
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres  BENCH_NATS_URL=nats://127.0.0.1:4222
//   BENCH_ENFORCE_TARGETS=1      exit 2 when a target is missed (default: report only)
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, createServer } from 'node:tls';
import { cpuMeter, log, percentile, positiveNumberEnv, round, runBench, sleep } from '../lib/harness.mjs';
import { benchSystem, busClient, RESULTS_DIR, startService } from '../lib/services.mjs';

const TARGET_SCAN_SECONDS = 60;
const TARGET_P99_LAG_MS = 5000;
const PREFIX = '127.77';
const INTERVAL_MS = 60_000;
/** How long after the window the bench waits for the probes of its last slots to be written. */
const SLOT_GRACE_MS = 10_000;

const settings = {
  listeners: positiveNumberEnv('BENCH_LISTENERS', 100),
  checks: positiveNumberEnv('BENCH_CHECKS', 10_000),
  windowSeconds: positiveNumberEnv('BENCH_WINDOW_SECONDS', 60),
  poolSize: positiveNumberEnv('BENCH_POOL_SIZE', 10),
  enforceTargets: /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};

/** The i-th live address: spread over the /16 (127.77.<i*2>.<i+1>). */
const liveAddress = (i) => `${PREFIX}.${(i * 2) % 256}.${(i % 250) + 1}`;

async function startListeners(count, cert, key) {
  const servers = [];
  let port = 0;
  for (let i = 0; i < count; i++) {
    const server = createServer({ cert, key }, (socket) => socket.end());
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, liveAddress(i), resolve);
    });
    port = server.address().port;
    servers.push(server);
  }
  return { servers, port, close: () => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))) };
}

/** Baseline 1: every address of the /16 dialled once (TCP connect, then closed), 256 at a time. */
async function connectSweep(port, concurrency) {
  let next = 0;
  let open = 0;
  const worker = async () => {
    while (next < 65_536) {
      const n = next++;
      const host = `${PREFIX}.${n >> 8}.${n & 255}`;
      await new Promise((resolve) => {
        const socket = tcpConnect({ host, port });
        socket.setTimeout(10_000);
        socket.once('connect', () => {
          open++;
          socket.destroy();
          resolve();
        });
        socket.once('error', () => resolve());
        socket.once('timeout', () => {
          socket.destroy();
          resolve();
        });
      });
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { seconds: round((performance.now() - t0) / 1000, 2), open };
}

/** Baseline 2: a bare timer loop doing `rate` TLS handshakes a second for `seconds`, its lag. */
async function pacedHandshakes(port, rate, seconds, listeners) {
  const lags = [];
  const start = performance.now() + 100;
  const total = Math.floor(rate * seconds);
  await Promise.all(
    Array.from({ length: total }, (_, i) => {
      const due = start + (i * 1000) / rate;
      return new Promise((resolve) => {
        setTimeout(
          () => {
            const socket = tlsConnect(
              { host: liveAddress(i % listeners), port, rejectUnauthorized: false },
              () => {
                lags.push(performance.now() - due);
                socket.destroy();
                resolve();
              },
            );
            socket.once('error', () => resolve());
          },
          Math.max(0, due - performance.now()),
        );
      });
    }),
  );
  lags.sort((a, b) => a - b);
  return {
    handshakes: lags.length,
    p50_ms: round(percentile(lags, 50), 1),
    p99_ms: round(percentile(lags, 99), 1),
  };
}

const phaseMs = (id) => createHash('sha256').update(id).digest().readUInt32BE(0) % INTERVAL_MS;

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  const system = await benchSystem(settings);
  const cert = readFileSync(system.certPath);
  const key = readFileSync(system.keyPath);
  log(`starting ${settings.listeners} TLS listeners on ${PREFIX}.0.0/16`);
  const listeners = await startListeners(settings.listeners, cert, key);
  const { Client } = (await import('pg')).default;
  let db;
  try {
    log('baseline: bare TCP connect sweep of 65,536 addresses, 256 at a time');
    const baselineScan = await connectSweep(listeners.port, 256);
    log(`baseline sweep: ${baselineScan.seconds} s, ${baselineScan.open} open`);

    const monitor = await startService(system, 'health-monitor', {
      extraEnv: {
        SERVICE_NETWORK_ALLOW_CIDRS: '127.0.0.0/8',
        SERVICE_DATABASE_POOL_SIZE: String(settings.poolSize),
      },
    });
    const bus = await busClient(system, settings.natsUrl, 'bench-discovery');
    db = new Client({ connectionString: system.databaseUrl });
    await db.connect();

    // ---- 1. the scan ----
    const target = await bus.request('health-monitor.v1.create-scan-target', {
      name: 'bench /16',
      cidrs: [`${PREFIX}.0.0/16`],
      ports: [listeners.port],
      concurrency: 256,
      rate_per_second: 10_000,
    });
    const scanMeter = cpuMeter(() => ({ 'health-monitor': [monitor.pid] }));
    scanMeter.start();
    const started = await bus.request('health-monitor.v1.trigger-scan-target', { id: target.id });
    let scan = started;
    while (scan.status === 'running') {
      await sleep(250);
      scan = await bus.request('health-monitor.v1.get-network-scan', { id: started.id });
    }
    const scanCpu = scanMeter.stop();
    if (scan.status !== 'completed') throw new Error(`the scan ended ${scan.status}: ${scan.error}`);
    const scanSeconds = round((Date.parse(scan.finished_at) - Date.parse(scan.started_at)) / 1000, 2);
    const sightings = (
      await db.query(
        `SELECT count(*)::int AS n FROM health_monitor.discovered_certificate_sightings WHERE scan_id = $1`,
        [scan.id],
      )
    ).rows[0].n;
    log(`scan: ${scanSeconds} s for ${scan.endpoints_done} endpoints, ${sightings} sightings`);
    if (sightings !== settings.listeners)
      throw new Error(`the scan saw ${sightings} listeners of ${settings.listeners}`);

    // ---- 2. the monitor ----
    log('baseline: a bare timer loop doing the same handshake rate for 10 s');
    const rate = settings.checks / (INTERVAL_MS / 1000);
    const baselineMonitor = await pacedHandshakes(listeners.port, rate, 10, settings.listeners);
    log(`baseline paced handshakes: p50 ${baselineMonitor.p50_ms} ms, p99 ${baselineMonitor.p99_ms} ms`);

    const ids = Array.from({ length: settings.checks }, (_, n) => `hc-bench-${String(n).padStart(6, '0')}`);
    const insertedAt = Date.now();
    const firstDue = ids.map((id) => {
      const slot = Math.floor(insertedAt / INTERVAL_MS) * INTERVAL_MS + phaseMs(id);
      return new Date(slot >= insertedAt ? slot : slot + INTERVAL_MS);
    });
    await db.query(
      `INSERT INTO health_monitor.health_checks (id, name, host, port, interval_seconds, next_check_at)
       SELECT id, id, host, $4, 60, due FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS t(id, host, due)`,
      [ids, ids.map((_, n) => liveAddress(n % settings.listeners)), firstDue, listeners.port],
    );
    // A check whose first due time falls before the monitor's next tick is claimed by that tick,
    // late; from then on every check is on schedule. So the window starts one interval on.
    const windowStart = insertedAt + INTERVAL_MS + 5_000;
    const windowEnd = windowStart + settings.windowSeconds * 1000;
    log(`${settings.checks} checks inserted; measuring from +65 s for ${settings.windowSeconds} s`);
    await sleep(windowStart - Date.now());
    const monitorMeter = cpuMeter(() => ({ 'health-monitor': [monitor.pid] }));
    monitorMeter.start();
    await sleep(windowEnd - Date.now());
    const monitorCpu = monitorMeter.stop();
    // Probes of slots due at the end of the window may still be running, and the monitor writes
    // results in batches: wait until no more results of the window arrive (at most 30 s).
    const windowCount = async () =>
      (
        await db.query(
          `SELECT count(*)::int AS n FROM health_monitor.health_check_results WHERE checked_at >= $1 AND checked_at < $2`,
          [new Date(windowStart), new Date(windowEnd + SLOT_GRACE_MS)],
        )
      ).rows[0].n;
    await sleep(SLOT_GRACE_MS);
    let settledAfter = Date.now() - windowEnd;
    for (let count = await windowCount(), waited = 0; waited < 30_000; waited += 2_000) {
      await sleep(2_000);
      const next = await windowCount();
      if (next === count) break;
      count = next;
      settledAfter = Date.now() - windowEnd;
    }
    const results = (
      await db.query(
        `SELECT health_check_id AS id, checked_at, success FROM health_monitor.health_check_results
         WHERE checked_at >= $1 AND checked_at < $2 ORDER BY checked_at`,
        [new Date(insertedAt), new Date(windowEnd + SLOT_GRACE_MS)],
      )
    ).rows;
    // Each probe is assigned to the slot it was due in: the latest due time (phase + n intervals)
    // at or before it. Counted: the slots due inside the window. A slot probed twice is a double
    // probe; a slot with no probe (or probed more than an interval late) is a missed slot.
    const perSlot = new Map();
    let closerThanHalfInterval = 0;
    const lastProbe = new Map();
    for (const row of results) {
      const at = row.checked_at.getTime();
      const previous = lastProbe.get(row.id);
      if (previous !== undefined && at - previous < INTERVAL_MS / 2) closerThanHalfInterval++;
      lastProbe.set(row.id, at);
      const phase = phaseMs(row.id);
      const slot = Math.floor((at - phase) / INTERVAL_MS) * INTERVAL_MS + phase;
      if (slot < windowStart || slot >= windowEnd) continue;
      const key = `${row.id}@${slot}`;
      const entry = perSlot.get(key);
      if (entry) entry.probes++;
      else perSlot.set(key, { probes: 1, lag: at - slot, success: row.success });
    }
    const slots = [...perSlot.values()];
    const lags = slots.map((slot) => slot.lag).sort((a, b) => a - b);
    const expected = ids.reduce((n, id) => {
      const phase = phaseMs(id);
      let count = 0;
      for (
        let due = Math.ceil((windowStart - phase) / INTERVAL_MS) * INTERVAL_MS + phase;
        due < windowEnd;
        due += INTERVAL_MS
      )
        count++;
      return n + count;
    }, 0);
    const probes = slots.reduce((n, slot) => n + slot.probes, 0);
    const monitorSummary = {
      probes,
      expected_probes: expected,
      slots_probed: slots.length,
      missed_slots: expected - slots.length,
      double_probes: probes - slots.length,
      probes_closer_than_half_interval: closerThanHalfInterval,
      failed_probes: slots.filter((slot) => !slot.success).length,
      p50_lag_ms: round(percentile(lags, 50), 0),
      p99_lag_ms: round(percentile(lags, 99), 0),
      max_lag_ms: round(lags.at(-1), 0),
    };
    monitorSummary.results_settled_after_window_ms = settledAfter;
    log(`monitor: ${JSON.stringify(monitorSummary)}`);
    if (monitorSummary.missed_slots > 0)
      log(`health-monitor output (tail):\n${monitor.output().slice(-3000)}`);

    const pass =
      scanSeconds < TARGET_SCAN_SECONDS &&
      monitorSummary.p99_lag_ms < TARGET_P99_LAG_MS &&
      monitorSummary.missed_slots === 0 &&
      monitorSummary.double_probes === 0;
    const summary = {
      bench: 'discovery',
      timestamp: new Date().toISOString(),
      scan: {
        endpoints: scan.endpoints_done,
        live_listeners: settings.listeners,
        sightings,
        seconds: scanSeconds,
        rate_floor_seconds: round(65_536 / 10_000, 2),
        baseline_connect_sweep_seconds: baselineScan.seconds,
        health_monitor_cpu_seconds: scanCpu.cpu_seconds['health-monitor'],
        other_processes_percent: scanCpu.other_processes_percent,
        target_seconds: TARGET_SCAN_SECONDS,
      },
      monitor: {
        checks: settings.checks,
        interval_seconds: 60,
        database_pool_size: settings.poolSize,
        load_average_1m: round(os.loadavg()[0], 1),
        window_seconds: settings.windowSeconds,
        ...monitorSummary,
        baseline_paced_handshakes: baselineMonitor,
        health_monitor_cpu_seconds: monitorCpu.cpu_seconds['health-monitor'],
        postgres_cpu_seconds: monitorCpu.cpu_seconds.postgres,
        health_monitor_cpu_ms_per_probe: round(
          (monitorCpu.cpu_seconds['health-monitor'] * 1000) / expected,
          2,
        ),
        postgres_cpu_ms_per_probe: round((monitorCpu.cpu_seconds.postgres * 1000) / expected, 2),
        other_processes_percent: monitorCpu.other_processes_percent,
        machine_steal_percent: monitorCpu.machine_steal_percent,
        target_p99_lag_ms: TARGET_P99_LAG_MS,
      },
      pass,
    };
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(join(RESULTS_DIR, `discovery-${stamp}.json`), `${JSON.stringify(summary, null, 2)}\n`);
    log(
      `scan ${scanSeconds} s (target < ${TARGET_SCAN_SECONDS} s; bare connect sweep ${baselineScan.seconds} s); ` +
        `monitor p99 lag ${monitorSummary.p99_lag_ms} ms over ${probes} probes of ${expected} slots ` +
        `(${monitorSummary.missed_slots} missed, ${monitorSummary.double_probes} double) (target < ${TARGET_P99_LAG_MS} ms; ` +
        `bare timer loop p99 ${baselineMonitor.p99_ms} ms): ${pass ? 'met' : 'MISSED'}`,
    );
    process.stdout.write(`BENCH_RESULT ${JSON.stringify(summary)}\n`);
    return summary;
  } finally {
    await db?.end();
    await listeners.close();
  }
}

await runBench(main, settings.enforceTargets);
