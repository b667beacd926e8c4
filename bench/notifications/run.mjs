#!/usr/bin/env node
// Notifications bench (issue 22, ADR 0056/0062): 1,000,000 certificates seeded with SQL, 2% of
// them crossing an alert threshold today (14 days left, policy thresholds [30,14,7,0]); one sweep
// of issuance's renewal loop (issuance.v1.run-renewal-sweep, the function its timer calls) emits
// their expiry warnings, the notifier consumes them from JetStream and stores one notification
// each, routed to a webhook notifier. Phase A reports the sweep's time, the time until every
// notification exists and until every one is delivered, and the notifier's and issuance's peak
// RSS. Phase B measures delivery alone: N pending notifications inserted at once, delivered by the
// notifier's sweep to a local webhook sink, against a bare baseline in the same run (this process
// POSTing the same body to the same sink with the same concurrency over kept-alive connections, as
// the notifier's guarded client does, and, for reference, a new connection each). See bench/README.md (## notifications).
// Run with `npm run bench:notifications`.
//
// Environment switches (all optional):
//   BENCH_CERTIFICATES=1000000   certificates seeded
//   BENCH_CROSSING_EVERY=50      one certificate in this many crosses a threshold today (2%)
//   BENCH_DELIVERIES=20000       notifications of phase B
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres  BENCH_NATS_URL=nats://127.0.0.1:4222
//   BENCH_ENFORCE_TARGETS=1      exit 2 when a target is missed (default: report only)
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { cpuMeter, log, positiveNumberEnv, ROOT, round, runBench, sleep } from '../lib/harness.mjs';
import { benchSystem, busClient, RESULTS_DIR, startService } from '../lib/services.mjs';

const require = createRequire(import.meta.url);
const { SecretBox } = require(join(ROOT, 'dist/libs/platform/src/index.js'));

/** Targets (issue 22): the sweep's notifications in under 10 s with flat memory; 2,000 deliveries/s. */
const TARGET_SWEEP_SECONDS = 10;
const TARGET_PEAK_RSS_MIB = 512;
const TARGET_DELIVERIES_PER_SECOND = 2000;
/** The sink notifier's sends at once (its max_concurrent below; ADR 0062), also the bare baseline's. */
const SWEEP_CONCURRENCY = 16;

const settings = {
  certificates: positiveNumberEnv('BENCH_CERTIFICATES', 1_000_000),
  crossingEvery: positiveNumberEnv('BENCH_CROSSING_EVERY', 50),
  deliveries: positiveNumberEnv('BENCH_DELIVERIES', 20_000),
  enforceTargets: /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN);
  return { rss_mib: round(kib('VmRSS') / 1024, 1), peak_rss_mib: round(kib('VmHWM') / 1024, 1) };
}

const resetPeak = (pid) => writeFileSync(`/proc/${pid}/clear_refs`, '5');

/** The webhook sink: answers 204 to everything and counts. */
async function startSink() {
  const sink = { received: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      sink.received++;
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  sink.server = server;
  sink.url = `http://127.0.0.1:${server.address().port}/hook`;
  return sink;
}

/** Bare baseline: `count` POSTs of `body` to the sink, `concurrency` at a time, kept alive or a new connection each. */
async function bareBaseline(url, body, count, concurrency, keepAlive) {
  const target = new URL(url);
  const agent = keepAlive ? new Agent({ keepAlive: true, maxSockets: concurrency }) : false;
  let next = 0;
  const post = () =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.once('error', reject);
      req.end(body);
    });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) await post();
    }),
  );
  const rate = count / ((performance.now() - t0) / 1000);
  if (agent) agent.destroy();
  return rate;
}

async function seed(db, count, crossingEvery) {
  await db.query(
    `INSERT INTO issuance.renewal_policies (id, name, renewal_window_days, max_retries, retry_interval_seconds, alert_thresholds_days)
     VALUES ('rp-bench', 'Bench', 1, 3, 3600, '{30,14,7,0}')`,
  );
  // Every crossingEvery-th certificate has 13.5 days left (thresholds 30 and 14 crossed, 14
  // announced); the others 45..409 days (none crossed). No agent and no issuer: nothing renews.
  // Whole seconds, spread over an hour, like X.509 notAfter values (the loop's cursor keeps
  // microseconds too: renewal-loop.int-spec covers expiries shared below the millisecond).
  await db.query(
    `INSERT INTO issuance.certificates (id, name, common_name, status, renewal_policy_id, environment,
       owner_id, team_id, not_before, expires_at)
     SELECT 'bench-' || lpad(n::text, 7, '0'), 'bench-' || n, 'bench-' || n || '.example.com', 'Active',
       'rp-bench', 'production', NULL, NULL, now() - interval '365 days',
       CASE WHEN n % $2 = 0 THEN date_trunc('second', now()) + interval '13 days 12 hours' + make_interval(secs => n % 3600)
            ELSE date_trunc('second', now()) + make_interval(days => 45 + n % 365, secs => n % 3600) END
     FROM generate_series(1, $1::int) AS n`,
    [count, crossingEvery],
  );
  await db.query('ANALYZE issuance.certificates');
}

async function addWebhookNotifier(db, env, url) {
  const box = new SecretBox(env.SERVICE_CONFIG_ENCRYPTION_KEY, 'notifier secrets');
  const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
  await db.query(
    `INSERT INTO notifier.notifiers (id, name, kind, settings, sealed_secrets)
     VALUES ('sink', 'Sink', 'webhook', '{"max_concurrent": 16}', $1)`,
    [box.seal(JSON.stringify({ url, secret }), 'sink')],
  );
  await db.query(
    `INSERT INTO notifier.routing_rules (id, name, event_types, notifier_ids)
     VALUES ('expiry-to-sink', 'Expiry', '{certificate.expiring}', '{sink}')`,
  );
}

const count = async (db, sql) => (await db.query(sql)).rows[0].n;

/** Server processes of the bench's database (the services' pools and this client). */
const databaseBackends = async (db) =>
  (
    await db.query(
      `SELECT coalesce(array_agg(pid), '{}') AS pids FROM pg_stat_activity WHERE datname = current_database()`,
    )
  ).rows[0].pids;

async function waitFor(db, sql, expected, what, timeoutMs = 900_000) {
  const deadline = Date.now() + timeoutMs;
  let nextLog = Date.now() + 10_000;
  for (;;) {
    const n = await count(db, sql);
    if (n >= expected) return;
    if (Date.now() > deadline) throw new Error(`${what}: ${n} of ${expected} after ${timeoutMs} ms`);
    if (Date.now() >= nextLog) {
      log(`${what}: ${n} of ${expected}`);
      nextLog = Date.now() + 10_000;
    }
    await sleep(50);
  }
}

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  const sink = await startSink();
  const system = await benchSystem(settings);
  const common = { SERVICE_NOTIFIER_ALLOWED_NETWORKS: '127.0.0.1' };
  log('starting issuance (sweep timers at 1h) and the notifier (retry sweep every 1 s)');
  const issuance = await startService(system, 'issuance', {
    extraEnv: { ...common, SERVICE_RENEWAL_SWEEP_INTERVAL: '1h', SERVICE_POLICY_SWEEP_INTERVAL: '24h' },
  });
  const notifier = await startService(system, 'notifier', {
    extraEnv: { ...common, SERVICE_NOTIFICATION_RETRY_INTERVAL: '1s' },
  });
  const bus = await busClient(system, settings.natsUrl, 'bench-notifications');
  const { Client } = (await import('pg')).default;
  const db = new Client({ connectionString: system.databaseUrl });
  await db.connect();
  try {
    log(`seeding ${settings.certificates} certificates`);
    const s0 = performance.now();
    await seed(db, settings.certificates, settings.crossingEvery);
    await addWebhookNotifier(db, system.env, sink.url);
    const seedSeconds = round((performance.now() - s0) / 1000, 1);
    const expected = Math.floor(settings.certificates / settings.crossingEvery);
    log(`seeded in ${seedSeconds} s; ${expected} cross a threshold today`);

    // Phase A: the sweep, then the notifier turning its warnings into notifications.
    resetPeak(notifier.pid);
    resetPeak(issuance.pid);
    const meter = cpuMeter(() => ({ issuance: [issuance.pid], notifier: [notifier.pid] }));
    // CPU until every notification is stored, with Postgres counted only for the backends of the
    // bench's database (other work on the machine uses the same server).
    let backends = await databaseBackends(db);
    const storeMeter = cpuMeter(() => ({
      issuance: [issuance.pid],
      notifier: [notifier.pid],
      bench_database: backends,
    }));
    meter.start();
    storeMeter.start();
    const t0 = performance.now();
    const result = await bus.request('issuance.v1.run-renewal-sweep', {}, 600_000);
    const sweepSeconds = round((performance.now() - t0) / 1000, 2);
    log(`sweep: ${JSON.stringify(result)} in ${sweepSeconds} s`);
    if (result.expiry_warnings !== expected)
      throw new Error(`the sweep sent ${result.expiry_warnings} expiry warnings, expected ${expected}`);
    const stored = `SELECT count(*)::int AS n FROM notifier.notifications WHERE event_type = 'certificate.expiring'`;
    await waitFor(db, stored, expected, 'notifications stored');
    const storedSeconds = round((performance.now() - t0) / 1000, 2);
    backends = await databaseBackends(db);
    const cpuStore = storeMeter.stop();
    const perWarning = (group) => round((cpuStore.cpu_seconds[group] * 1000) / expected, 3);
    const storeCpuMsPerWarning = {
      issuance: perWarning('issuance'),
      notifier: perWarning('notifier'),
      postgres_bench_database: perWarning('bench_database'),
      nats_server: perWarning('nats-server'),
    };
    log(
      `stored at ${storedSeconds} s; CPU ms per warning until then: ${JSON.stringify(storeCpuMsPerWarning)} (others ${cpuStore.other_processes_percent}% of the machine)`,
    );
    const notifierPeakA = memory(notifier.pid).peak_rss_mib;
    await waitFor(
      db,
      `SELECT count(*)::int AS n FROM notifier.notifications WHERE event_type = 'certificate.expiring' AND status = 'sent'`,
      expected,
      'notifications delivered',
    );
    const deliveredSeconds = round((performance.now() - t0) / 1000, 2);
    const cpuA = meter.stop();
    const issuancePeak = memory(issuance.pid).peak_rss_mib;
    if ((await count(db, stored)) !== expected) throw new Error('more notifications than warnings');
    log(
      `phase A: sweep ${sweepSeconds} s, ${expected} notifications stored at ${storedSeconds} s, delivered at ${deliveredSeconds} s`,
    );

    // Phase B: delivery alone, N pending notifications at once, then the bare baseline.
    const event = {
      type: 'certificate.expiring',
      severity: 'warning',
      dedup_key: 'bench',
      certificate_id: 'bench-0000050',
      owner_id: null,
      team_id: null,
      environment: 'production',
      issuer_id: null,
      title: 'bench-50.example.com expires in 13 days',
      details: { common_name: 'bench-50.example.com', days_remaining: 13, threshold_days: 14 },
      occurred_at: new Date().toISOString(),
    };
    resetPeak(notifier.pid);
    const b0 = performance.now();
    const receivedBefore = sink.received;
    await db.query(
      `INSERT INTO notifier.notifications (id, dedup_key, event_type, severity, certificate_id, notifier_id, title, event)
       SELECT gen_random_uuid(), 'bench-delivery:' || n, 'certificate.expiring', 'warning', 'bench-0000050', 'sink', $2, $3
       FROM generate_series(1, $1::int) AS n`,
      [settings.deliveries, event.title, JSON.stringify(event)],
    );
    await waitFor(
      db,
      `SELECT count(*)::int AS n FROM notifier.notifications WHERE dedup_key LIKE 'bench-delivery:%' AND status = 'sent'`,
      settings.deliveries,
      'phase B deliveries',
    );
    const wallSeconds = (performance.now() - b0) / 1000;
    // From the insert until the last is recorded sent (sent_at is per claimed batch, so its
    // spread would leave the first batch out).
    const deliveriesPerSecond = round(settings.deliveries / wallSeconds, 0);
    const notifierPeakB = memory(notifier.pid).peak_rss_mib;
    if (sink.received - receivedBefore !== settings.deliveries)
      throw new Error(`the sink received ${sink.received - receivedBefore}, expected ${settings.deliveries}`);
    const body = JSON.stringify({
      type: event.type,
      timestamp: event.occurred_at,
      data: { ...event, notification_id: randomUUID() },
    });
    const bare = round(await bareBaseline(sink.url, body, settings.deliveries, SWEEP_CONCURRENCY, true), 0);
    const bareNewConnections = round(
      await bareBaseline(sink.url, body, settings.deliveries, SWEEP_CONCURRENCY, false),
      0,
    );
    log(
      `phase B: ${deliveriesPerSecond} deliveries/s (bare sink ${bare}/s kept alive, ${bareNewConnections}/s a connection each)`,
    );

    const summary = {
      bench: 'notifications',
      timestamp: new Date().toISOString(),
      certificates: settings.certificates,
      crossing_today: expected,
      seed_seconds: seedSeconds,
      sweep_seconds: sweepSeconds,
      sweep_duration_ms: result.duration_ms,
      notifications_stored_seconds: storedSeconds,
      notifications_delivered_seconds: deliveredSeconds,
      issuance_peak_rss_mib: issuancePeak,
      notifier_peak_rss_mib_phase_a: notifierPeakA,
      issuance_cpu_seconds: cpuA.cpu_seconds,
      store_cpu_seconds: cpuStore.cpu_seconds,
      store_cpu_ms_per_warning: storeCpuMsPerWarning,
      store_other_processes_percent: cpuStore.other_processes_percent,
      machine_steal_percent: cpuA.machine_steal_percent,
      other_processes_percent: cpuA.other_processes_percent,
      deliveries: settings.deliveries,
      deliveries_per_second: deliveriesPerSecond,
      delivery_wall_seconds: round(wallSeconds, 2),
      notifier_peak_rss_mib_phase_b: notifierPeakB,
      bare_sink_posts_per_second: bare,
      bare_sink_new_connection_posts_per_second: bareNewConnections,
      delivery_vs_bare: round(deliveriesPerSecond / bare, 2),
      target_sweep_seconds: TARGET_SWEEP_SECONDS,
      target_peak_rss_mib: TARGET_PEAK_RSS_MIB,
      target_deliveries_per_second: TARGET_DELIVERIES_PER_SECOND,
      node_version: process.version,
      cpu_count: os.cpus().length,
      cpu_model: os.cpus()[0]?.model,
    };
    summary.pass =
      storedSeconds <= TARGET_SWEEP_SECONDS &&
      Math.max(notifierPeakA, issuancePeak) <= TARGET_PEAK_RSS_MIB &&
      deliveriesPerSecond >= TARGET_DELIVERIES_PER_SECOND;
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `notifications-${stamp}.json`);
    summary.results_file = file;
    writeFileSync(file, JSON.stringify({ settings, summary }, null, 2));
    console.log(
      [
        `Notifications over ${settings.certificates} certificates (${expected} crossing a threshold today):`,
        `  sweep ${sweepSeconds} s; all ${expected} notifications stored at ${storedSeconds} s, delivered at ${deliveredSeconds} s`,
        `  CPU ms per warning until stored: issuance ${storeCpuMsPerWarning.issuance}, notifier ${storeCpuMsPerWarning.notifier}, postgres (bench database) ${storeCpuMsPerWarning.postgres_bench_database}, nats-server ${storeCpuMsPerWarning.nats_server}; others ${cpuStore.other_processes_percent}% of the machine`,
        `  peak RSS: issuance ${issuancePeak} MiB, notifier ${notifierPeakA} MiB`,
        `  delivery: ${deliveriesPerSecond} deliveries/s to the webhook sink (${settings.deliveries} notifications), bare sink ${bare} POSTs/s kept alive (${bareNewConnections} a connection each) at concurrency ${SWEEP_CONCURRENCY}`,
        `  targets: stored under ${TARGET_SWEEP_SECONDS} s with peak RSS <= ${TARGET_PEAK_RSS_MIB} MiB, >= ${TARGET_DELIVERIES_PER_SECOND} deliveries/s: ${summary.pass ? 'MET' : 'MISS'}`,
        `Results: ${file}`,
        `BENCH_RESULT ${JSON.stringify(summary)}`,
      ].join('\n'),
    );
    return summary;
  } finally {
    await db.end();
    await new Promise((resolve) => sink.server.close(resolve));
  }
}

await runBench(main, settings.enforceTargets);
