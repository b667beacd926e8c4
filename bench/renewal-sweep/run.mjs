#!/usr/bin/env node
// Renewal-sweep bench (ADR 0028): 1,000,000 certificates seeded with SQL, 1% of them inside their
// renewal window; one sweep of the renewal loop, triggered over the internal bus subject
// issuance.v1.run-renewal-sweep (the same function the SERVICE_RENEWAL_SWEEP_INTERVAL timer calls;
// the timers are set to 1h so they stay out of the measurement). Reports the sweep's time, the
// jobs and expiry warnings it created, the issuance process's peak RSS (VmHWM, reset before the
// sweep), the plan of the candidate query, and the time of a second sweep with nothing due.
// See bench/README.md (## renewal-sweep). Run with `npm run bench:renewal-sweep`.
//
// Environment switches (all optional):
//   BENCH_CERTIFICATES=1000000   certificates seeded
//   BENCH_DUE_EVERY=100          one certificate in this many is inside its window (1%)
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres  BENCH_NATS_URL=nats://127.0.0.1:4222
//   BENCH_ENFORCE_TARGETS=1      exit 2 when a target is missed (default: report only)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { cpuMeter, log, positiveNumberEnv, round, runBench } from '../lib/harness.mjs';
import { benchSystem, busClient, RESULTS_DIR, startService } from '../lib/services.mjs';

/** Target: one sweep over 1,000,000 certificates (10,000 due) in under 10 s, flat memory. */
const TARGET_SECONDS = 10;
const TARGET_PEAK_RSS_MIB = 512;

const settings = {
  certificates: positiveNumberEnv('BENCH_CERTIFICATES', 1_000_000),
  dueEvery: positiveNumberEnv('BENCH_DUE_EVERY', 100),
  enforceTargets: /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN);
  return { rss_mib: round(kib('VmRSS') / 1024, 1), peak_rss_mib: round(kib('VmHWM') / 1024, 1) };
}

function resetPeak(pid) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/**
 * The inventory: every `dueEvery`-th certificate expires in 1..29 days (inside the 30-day window
 * of rp-default), the others in 45..409 days; 2% of the rest are Archived, Revoked or Pending, so
 * the status predicate matters. Issued a year ago (not_before), by the local CA, each run by an
 * agent (the loop passes by agentless certificates in agent key generation, ADR 0042).
 */
async function seed(db, count, dueEvery) {
  await db.query(
    `INSERT INTO issuance.certificates (id, name, common_name, status, issuer_id, renewal_policy_id,
       agent_id, environment, not_before, expires_at)
     SELECT 'bench-' || lpad(n::text, 7, '0'), 'bench-' || n, 'bench-' || n || '.example.com',
       CASE WHEN n % $2 = 0 THEN 'Active'
            WHEN n % 150 = 1 THEN 'Archived' WHEN n % 150 = 2 THEN 'Revoked' WHEN n % 150 = 3 THEN 'Pending'
            ELSE 'Active' END,
       'iss-local', 'rp-default', 'agt-bench', 'production', now() - interval '365 days',
       CASE WHEN n % $2 = 0 THEN now() + make_interval(days => 1 + n % 29)
            WHEN n % 150 = 3 THEN NULL
            ELSE now() + make_interval(days => 45 + n % 365) END
     FROM generate_series(1, $1::int) AS n`,
    [count, dueEvery],
  );
  await db.query('ANALYZE issuance.certificates');
}

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  const system = await benchSystem(settings);
  log('starting issuance (agent key generation, sweep timers at 1h)');
  const issuance = await startService(system, 'issuance', {
    extraEnv: { SERVICE_RENEWAL_SWEEP_INTERVAL: '1h', SERVICE_POLICY_SWEEP_INTERVAL: '24h' },
  });
  const bus = await busClient(system, settings.natsUrl, 'bench-renewal-sweep');
  const { Client } = (await import('pg')).default;
  const db = new Client({ connectionString: system.databaseUrl });
  await db.connect();
  try {
    log(`seeding ${settings.certificates} certificates`);
    const s0 = performance.now();
    await seed(db, settings.certificates, settings.dueEvery);
    const seedSeconds = round((performance.now() - s0) / 1000, 1);
    const expected = Math.floor(settings.certificates / settings.dueEvery);
    log(`seeded in ${seedSeconds} s; ${expected} inside their window`);

    const plan = await db.query(
      `EXPLAIN (FORMAT JSON) SELECT id, status, expires_at, now() AS db_now FROM issuance.certificates
       WHERE renewal_policy_id = 'rp-default' AND status IN ('Active', 'Expiring') AND expires_at IS NOT NULL
         AND expires_at <= now() + make_interval(days => 30)
         AND issuer_id IS NOT NULL AND agent_id <> ''
       ORDER BY expires_at LIMIT 1000 FOR UPDATE SKIP LOCKED`,
    );
    const indexes = JSON.stringify(plan.rows[0]['QUERY PLAN']).match(/"Index Name":"[^"]+"/g) ?? [];

    resetPeak(issuance.pid);
    const before = memory(issuance.pid);
    const meter = cpuMeter(() => ({ issuance: [issuance.pid] }));
    meter.start();
    const t0 = performance.now();
    const result = await bus.request('issuance.v1.run-renewal-sweep', {}, 600_000);
    const seconds = round((performance.now() - t0) / 1000, 2);
    const cpu = meter.stop();
    const after = memory(issuance.pid);
    const jobs = (
      await db.query(
        `SELECT count(*)::int AS n FROM issuance.jobs WHERE type = 'Renewal' AND status = 'AwaitingCSR'`,
      )
    ).rows[0].n;
    const inProgress = (
      await db.query(
        `SELECT count(*)::int AS n FROM issuance.certificates WHERE status = 'RenewalInProgress'`,
      )
    ).rows[0].n;
    if (result.jobs_created !== expected || jobs !== expected || inProgress !== expected)
      throw new Error(
        `sweep created ${result.jobs_created} jobs (database: ${jobs} jobs, ${inProgress} in progress), expected ${expected}`,
      );

    const i0 = performance.now();
    const idle = await bus.request('issuance.v1.run-renewal-sweep', {}, 600_000);
    const idleSeconds = round((performance.now() - i0) / 1000, 2);
    if (idle.jobs_created !== 0) throw new Error(`the second sweep created ${idle.jobs_created} jobs`);

    const summary = {
      bench: 'renewal-sweep',
      timestamp: new Date().toISOString(),
      certificates: settings.certificates,
      due: expected,
      seed_seconds: seedSeconds,
      sweep_seconds: seconds,
      sweep_duration_ms: result.duration_ms,
      jobs_created: result.jobs_created,
      expiry_warnings: result.expiry_warnings,
      idle_sweep_seconds: idleSeconds,
      issuance_rss_before_mib: before.rss_mib,
      issuance_peak_rss_mib: after.peak_rss_mib,
      issuance_cpu_seconds: cpu.cpu_seconds,
      machine_steal_percent: cpu.machine_steal_percent,
      other_processes_percent: cpu.other_processes_percent,
      candidate_query_indexes: indexes.map((i) => i.slice(14, -1)),
      target_seconds: TARGET_SECONDS,
      target_peak_rss_mib: TARGET_PEAK_RSS_MIB,
      node_version: process.version,
      cpu_count: os.cpus().length,
      cpu_model: os.cpus()[0]?.model,
    };
    summary.pass = seconds <= TARGET_SECONDS && after.peak_rss_mib <= TARGET_PEAK_RSS_MIB;
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `renewal-sweep-${stamp}.json`);
    summary.results_file = file;
    writeFileSync(file, JSON.stringify({ settings, summary }, null, 2));
    console.log(
      [
        `Renewal sweep over ${settings.certificates} certificates (${expected} inside their window):`,
        `  sweep: ${seconds} s (service-side ${result.duration_ms} ms), ${result.jobs_created} jobs, ${result.expiry_warnings} expiry warnings`,
        `  issuance RSS ${before.rss_mib} MiB before, peak ${after.peak_rss_mib} MiB during the sweep`,
        `  second sweep, nothing due: ${idleSeconds} s; candidate query uses ${summary.candidate_query_indexes.join(', ') || 'no index'}`,
        `  target: under ${TARGET_SECONDS} s, peak RSS <= ${TARGET_PEAK_RSS_MIB} MiB: ${summary.pass ? 'MET' : 'MISS'}`,
        `Results: ${file}`,
        `BENCH_RESULT ${JSON.stringify(summary)}`,
      ].join('\n'),
    );
    return summary;
  } finally {
    await db.end();
  }
}

await runBench(main, settings.enforceTargets);
