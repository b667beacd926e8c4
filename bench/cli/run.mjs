#!/usr/bin/env node
// CLI bench (issue 17): `certlane certs list --all` over BENCH_CERTIFICATES (100,000) certificates.
// 1. A fresh database; issuance starts, the inventory is seeded in SQL (bench/inventory/seed.mjs),
//    then auth and api-gateway start.
// 2. Baseline, same run: the same pages (per_page 500) fetched by a bare loop over the typed
//    client (ApiClient.call, sequential, nothing printed): what the API itself costs.
// 3. The CLI as a user runs it (`node dist/apps/cli/src/main.js certs list --all -o json`, then
//    `-o table`), its stdout read by this process; wall time, rows written, the CLI's peak RSS.
// The seed holds enough certificates that the default list (Archived left out) has at least
// BENCH_CERTIFICATES rows; resident memory is sampled as rows arrive to show it stays flat.
// Targets: 100,000 rows in under 20 s, peak memory under 150 MB (flat: streamed, not buffered).
// Run with `npm run bench:cli`. BENCH_CERTIFICATES=100000, BENCH_DATABASE_URL, BENCH_NATS_URL.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { cleanups, log, positiveNumberEnv, round, ROOT, runBench } from '../lib/harness.mjs';
import { benchSystem, RESULTS_DIR, startService } from '../lib/services.mjs';
import { seedInventory } from '../inventory/seed.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');
const { ApiClient, HttpsJsonClient } = require(join(ROOT, 'dist/libs/api-client/src/index.js'));

const TARGET_SECONDS = 20;
const TARGET_MB = 150;
const settings = {
  certificates: Math.round(positiveNumberEnv('BENCH_CERTIFICATES', 100_000)),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};
const CLI = join(ROOT, 'dist/apps/cli/src/main.js');
const MAX_RSS = join(ROOT, 'bench/cli/max-rss.cjs');

/** The bare loop: every page through the typed client, sequentially. */
async function baseline(gatewayUrl, system) {
  const http = new HttpsJsonClient({
    baseUrl: gatewayUrl,
    apiKey: system.env.SERVICE_AUTH_SECRET,
    caBundle: system.ca,
  });
  const client = new ApiClient(http);
  const started = process.hrtime.bigint();
  let rows = 0;
  for (let page = 1; ; page++) {
    const reply = await client.call('listCertificates', { query: { page, per_page: 500 } });
    rows += reply.data.length;
    if (reply.data.length < 500) break;
  }
  http.close();
  return { rows, seconds: round(Number(process.hrtime.bigint() - started) / 1e9, 2) };
}

/** Runs the CLI, counting the rows it prints; its peak RSS from the preload. */
function runCli(gatewayUrl, system, keyFile, caFile, output) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      ['--require', MAX_RSS, CLI, 'certs', 'list', '--all', '-o', output],
      {
        env: {
          PATH: process.env.PATH,
          SERVICE_SERVER_URL: gatewayUrl,
          SERVICE_API_KEY_FILE: keyFile,
          SERVICE_SERVER_CA_BUNDLE_PATH: caFile,
        },
      },
    );
    let lines = 0;
    let bytes = 0;
    let stderr = '';
    // Resident memory sampled as rows arrive: flat means the same at a tenth and at the end.
    const samples = [];
    const sampler = setInterval(() => {
      try {
        const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]);
        if (kib) samples.push({ rows: lines, rss_mb: round(kib / 1024, 1) });
      } catch {
        // the process has just exited
      }
    }, 100);
    child.stdout.on('data', (chunk) => {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines++;
    });
    child.stderr.on('data', (chunk) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sampler);
      if (code !== 0) return reject(new Error(`the CLI exited ${code}: ${stderr}`));
      const maxRssKib = Number(/\[max-rss-kib\] (\d+)/.exec(stderr)?.[1]);
      // JSON: one row per line between the envelope's first and last lines; table: a header line.
      const rows = output === 'json' ? lines - 2 : lines - 1;
      resolve({
        rows,
        seconds: round(Number(process.hrtime.bigint() - started) / 1e9, 2),
        output_mb: round(bytes / 1e6, 1),
        peak_rss_mb: round(maxRssKib / 1024, 1),
        rss_mb_by_progress: [0.1, 0.25, 0.5, 0.75, 1].map((share) => {
          const sample = samples.find((s) => s.rows >= rows * share) ?? samples[samples.length - 1];
          return { rows: sample?.rows, rss_mb: sample?.rss_mb };
        }),
      });
    });
  });
}

async function main() {
  log(`node ${process.version}, ${os.cpus().length} CPUs`);
  const system = await benchSystem(settings);
  const serviceEnv = {
    SERVICE_EXPIRY_SWEEP_INTERVAL: '24h',
    SERVICE_RENEWAL_SWEEP_INTERVAL: '1h',
    SERVICE_POLICY_SWEEP_INTERVAL: '24h',
  };
  log('starting issuance');
  await startService(system, 'issuance', { extraEnv: serviceEnv });
  const db = new Client({ connectionString: system.databaseUrl });
  await db.connect();
  cleanups.push(['database client', () => db.end()]);
  log(`seeding ${settings.certificates} certificates`);
  // The default list leaves Archived certificates out (a tenth of the seed): seed enough for
  // BENCH_CERTIFICATES listed rows.
  const seed = await seedInventory(db, { count: Math.ceil(settings.certificates / 0.88) });
  log(`seeded in ${seed.steps.total_seconds} s`);
  log('starting auth and api-gateway');
  const [, gateway] = await Promise.all([
    startService(system, 'auth', { extraEnv: serviceEnv }),
    startService(system, 'api-gateway', { extraEnv: serviceEnv }),
  ]);
  const dir = join(RESULTS_DIR, 'cli-tmp');
  mkdirSync(dir, { recursive: true });
  const keyFile = join(dir, 'key');
  const caFile = join(dir, 'ca.pem');
  writeFileSync(keyFile, system.env.SERVICE_AUTH_SECRET, { mode: 0o600 });
  writeFileSync(caFile, system.ca);

  log('baseline: the same pages through the typed client');
  await baseline(gateway.url, system); // warm-up: JIT, connection, the database's caches
  const bare = await baseline(gateway.url, system);
  log(`  ${bare.rows} rows in ${bare.seconds} s`);
  const cli = {};
  for (const output of ['json', 'table']) {
    log(`certlane certs list --all -o ${output}`);
    cli[output] = await runCli(gateway.url, system, keyFile, caFile, output);
    log(`  ${JSON.stringify(cli[output])}`);
  }
  const pass = Object.values(cli).every(
    (run) =>
      run.rows === bare.rows &&
      run.rows >= settings.certificates &&
      run.seconds < TARGET_SECONDS &&
      run.peak_rss_mb < TARGET_MB,
  );
  const summary = {
    bench: 'cli',
    at: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    certificates: settings.certificates,
    targets: { seconds: TARGET_SECONDS, peak_rss_mb: TARGET_MB },
    baseline_typed_client: bare,
    cli,
    cli_over_baseline: round(cli.json.seconds / bare.seconds, 2),
    pass,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(
    join(RESULTS_DIR, `cli-${summary.at.replace(/[:.]/g, '-')}.json`),
    `${JSON.stringify(summary, null, 2)}\n`,
  );
  process.stdout.write(
    [
      `cli bench: ${settings.certificates} certificates listed, node ${process.version}, ${os.cpus().length} CPUs`,
      `  baseline (typed client, no output): ${bare.rows} rows in ${bare.seconds} s`,
      ...Object.entries(cli).map(
        ([output, run]) =>
          `  certlane certs list --all -o ${output}: ${run.rows} rows in ${run.seconds} s, ${run.output_mb} MB out, peak RSS ${run.peak_rss_mb} MB`,
      ),
      `  target: < ${TARGET_SECONDS} s and < ${TARGET_MB} MB: ${pass ? 'met' : 'MISSED'}`,
      `BENCH_RESULT ${JSON.stringify(summary)}`,
      '',
    ].join('\n'),
  );
  return summary;
}

runBench(main, /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''));
