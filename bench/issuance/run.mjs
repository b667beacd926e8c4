#!/usr/bin/env node
// Issuance bench (issue 4): certificates issued through the bus with the database write.
// N concurrent `issuance.v1.issue-certificate` requests (pre-generated P-256 CSRs, used in turn)
// against the real issuance process (dist/) for 10 s: CSR check, certificate build and signature
// by the local CA's issuing CA (P-256), the issued_certificates row and its audit record in one
// transaction. A fresh database and NATS namespace. See bench/README.md (## issuance).
// Run with `npm run bench:issuance`.
//
// Environment switches (all optional):
//   BENCH_ROUNDS=1  BENCH_DURATION_SECONDS=10  BENCH_WARMUP_SECONDS=2  BENCH_CONCURRENCY=64
//   BENCH_CSRS=512                 distinct CSRs, used in turn
//   BENCH_CPU_PROF=1               issuance with --cpu-prof (bench/results/profiles-issuance-<ts>/)
//   BENCH_NODE_ARGS="..."          extra node flags for the issuance process
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres  BENCH_NATS_URL=nats://127.0.0.1:4222
//   BENCH_ENFORCE_TARGETS=1        exit 2 when the target is missed (default: report only)
import { X509Certificate } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import {
  cpuMeter,
  dbCounters,
  log,
  median,
  percentile,
  round,
  round3,
  sleep,
  positiveNumberEnv,
  runBench,
} from '../lib/harness.mjs';
import { benchSystem, busClient, RESULTS_DIR, startService } from '../lib/services.mjs';
import { makeCsrs, pki } from '../pki/common.mjs';

const TARGET_RATE = 1000;

const num = positiveNumberEnv;
const settings = {
  rounds: Math.round(num('BENCH_ROUNDS', 1)),
  durationSeconds: num('BENCH_DURATION_SECONDS', 10),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 2),
  concurrency: Math.round(num('BENCH_CONCURRENCY', 64)),
  csrCount: Math.round(num('BENCH_CSRS', 512)),
  cpuProf: /^(1|true|yes|on)$/i.test(process.env.BENCH_CPU_PROF ?? ''),
  enforceTargets: /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};

/**
 * `concurrency` loops, each sending the next pre-encoded request as soon as its previous one is
 * answered, for `seconds`. Every reply must be ok; the serials are collected to check their rows.
 */
async function load(bus, payloads, seconds, concurrency) {
  const subject = bus.subject('issuance.v1.issue-certificate');
  const latencies = [];
  const serials = [];
  let next = 0;
  let failure;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!failure && performance.now() < until) {
        const payload = payloads[next++ % payloads.length];
        const t0 = performance.now();
        const reply = bus.codec.decode((await bus.nc.request(subject, payload, { timeout: 30_000 })).data);
        latencies.push(performance.now() - t0);
        if (!reply.ok) {
          failure = new Error(`issue-certificate answered ${JSON.stringify(reply.error)}`);
          break;
        }
        serials.push(reply.data.serial_hex);
      }
    }),
  );
  if (failure) throw failure;
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    issued: serials.length,
    elapsed_seconds: round(elapsed, 2),
    certificates_per_second: round(serials.length / elapsed, 1),
    latency_ms: {
      p50: round3(percentile(latencies, 50)),
      p99: round3(percentile(latencies, 99)),
      max: round3(latencies.at(-1)),
    },
    serials,
  };
}

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  const system = await benchSystem(settings);
  const profileDir = settings.cpuProf ? join(RESULTS_DIR, `profiles-issuance-${stamp}`) : undefined;
  log('starting issuance');
  const issuance = await startService(system, 'issuance', { cpuProfDir: profileDir });
  const bus = await busClient(system, settings.natsUrl, 'bench-issuance');

  log(`generating ${settings.csrCount} P-256 CSRs`);
  const csrs = await makeCsrs(settings.csrCount, { algorithm: 'ECDSA', curve: 'P-256' });
  const payloads = csrs.map((der) => bus.encode({ csr_pem: pki.toPem('CERTIFICATE REQUEST', der) }));

  // One certificate first, checked against the issuing CA by node's X509Certificate.
  const first = await bus.request('issuance.v1.issue-certificate', {
    csr_pem: pki.toPem('CERTIFICATE REQUEST', csrs[0]),
  });
  const [issuingPem] = first.chain_pem.match(
    /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g,
  );
  const issuing = new X509Certificate(issuingPem);
  const leaf = new X509Certificate(first.certificate_pem);
  if (!leaf.verify(issuing.publicKey) || !leaf.checkIssued(issuing))
    throw new Error('the issued certificate does not verify against the issuing CA');
  log(
    `issuing CA ${issuing.subject.replace(/\n/g, ', ')} (${issuing.publicKey.asymmetricKeyDetails?.namedCurve ?? issuing.publicKey.asymmetricKeyType})`,
  );

  const { Client } = (await import('pg')).default;
  const db = new Client({ connectionString: system.databaseUrl });
  await db.connect();
  const groups = () => ({ issuance: [issuance.pid] });
  const rounds = [];
  try {
    for (let i = 0; i < settings.rounds; i++) {
      log(`round ${i + 1}: warm-up ${settings.warmupSeconds} s`);
      await load(bus, payloads, settings.warmupSeconds, settings.concurrency);
      log(`round ${i + 1}: measuring ${settings.durationSeconds} s at concurrency ${settings.concurrency}`);
      const dbBefore = await dbCounters(settings.databaseServerUrl, system.database);
      const meter = cpuMeter(groups);
      meter.start();
      const result = await load(bus, payloads, settings.durationSeconds, settings.concurrency);
      result.cpu = meter.stop();
      // The audit events go out through the outbox relay after the reply: does it keep up?
      const backlog = async () =>
        (await db.query('SELECT count(*)::int AS n FROM issuance.outbox WHERE published_at IS NULL')).rows[0]
          .n;
      result.outbox_backlog_at_end = await backlog();
      const drainStarted = performance.now();
      while ((await backlog()) > 0) {
        if (performance.now() - drainStarted > 120_000)
          throw new Error('the outbox did not drain within 120 s');
        await sleep(100);
      }
      result.outbox_drain_seconds = round((performance.now() - drainStarted) / 1000, 1);
      await sleep(1100); // let Postgres flush its statistics
      const dbAfter = await dbCounters(settings.databaseServerUrl, system.database);
      result.postgres_transactions_per_certificate = round3(
        (dbAfter.xacts - dbBefore.xacts) / Math.max(1, result.issued),
      );
      result.cpu_ms_per_certificate = Object.fromEntries(
        Object.entries(result.cpu.cpu_seconds).map(([g, s]) => [
          g,
          round3((1000 * s) / Math.max(1, result.issued)),
        ]),
      );
      // Every certificate answered is in the database (its row and its audit record in the outbox).
      const { rows } = await db.query(
        'SELECT count(*)::int AS n FROM issuance.issued_certificates WHERE serial_hex = ANY($1)',
        [result.serials],
      );
      result.rows_found = rows[0].n;
      if (result.rows_found !== new Set(result.serials).size)
        throw new Error(
          `${result.issued} certificates answered, ${result.rows_found} rows in issued_certificates`,
        );
      delete result.serials;
      log(
        `round ${i + 1}: outbox backlog ${result.outbox_backlog_at_end} rows at the end, drained in ${result.outbox_drain_seconds} s`,
      );
      log(
        `round ${i + 1}: ${result.certificates_per_second} certificates/s, p50 ${result.latency_ms.p50} ms, p99 ${result.latency_ms.p99} ms, ` +
          `issuance CPU ${result.cpu_ms_per_certificate.issuance} ms/cert, other processes ${result.cpu.other_processes_percent}%`,
      );
      rounds.push({ round: i + 1, ...result });
    }
  } finally {
    await db.end();
  }

  const summary = {
    bench: 'issuance',
    timestamp: new Date().toISOString(),
    rounds: settings.rounds,
    concurrency: settings.concurrency,
    duration_seconds: settings.durationSeconds,
    certificates_per_second: median(rounds.map((r) => r.certificates_per_second)),
    p50_ms: median(rounds.map((r) => r.latency_ms.p50)),
    p99_ms: median(rounds.map((r) => r.latency_ms.p99)),
    cpu_ms_per_certificate: Object.fromEntries(
      Object.keys(rounds[0].cpu_ms_per_certificate).map((g) => [
        g,
        median(rounds.map((r) => r.cpu_ms_per_certificate[g])),
      ]),
    ),
    postgres_transactions_per_certificate: median(rounds.map((r) => r.postgres_transactions_per_certificate)),
    outbox_backlog_at_end: median(rounds.map((r) => r.outbox_backlog_at_end)),
    outbox_drain_seconds: median(rounds.map((r) => r.outbox_drain_seconds)),
    max_other_processes_cpu_percent: Math.max(...rounds.map((r) => r.cpu.other_processes_percent ?? 0)),
    target_certificates_per_second: TARGET_RATE,
    node_version: process.version,
    cpu_count: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
  };
  summary.max_steal_percent = Math.max(...rounds.map((r) => r.cpu.machine_steal_percent ?? 0));
  summary.noisy_machine = summary.max_other_processes_cpu_percent > 10 || summary.max_steal_percent > 10;
  summary.pass = summary.certificates_per_second >= TARGET_RATE;

  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `issuance-${stamp}.json`);
  summary.results_file = file;
  if (profileDir) summary.profiles = profileDir;
  await issuance.stop(); // flushes the CPU profile
  writeFileSync(file, JSON.stringify({ settings, summary, rounds }, null, 2));

  console.log(
    [
      `Issuance through the bus with the database write, P-256 CA, ${settings.rounds} round(s) of ${settings.durationSeconds} s at concurrency ${settings.concurrency} (medians):`,
      `  ${summary.certificates_per_second} certificates/s (target >= ${TARGET_RATE}) ${summary.pass ? 'MET' : 'MISS'}`,
      `  latency p50 ${summary.p50_ms} ms, p99 ${summary.p99_ms} ms; Postgres transactions per certificate ${summary.postgres_transactions_per_certificate}`,
      `  CPU ms/certificate: ${JSON.stringify(summary.cpu_ms_per_certificate)}`,
      `  audit outbox: ${summary.outbox_backlog_at_end} rows unpublished at the end, drained in ${summary.outbox_drain_seconds} s`,
      `  other processes' CPU: up to ${summary.max_other_processes_cpu_percent}% of the machine, hypervisor steal up to ${summary.max_steal_percent}%${summary.noisy_machine ? ' (NOISY: figures unreliable)' : ''}`,
      `Results: ${file}`,
      `BENCH_RESULT ${JSON.stringify(summary)}`,
    ].join('\n'),
  );
  return summary;
}

await runBench(main, settings.enforceTargets);
