#!/usr/bin/env node
// Web GUI bench (issue 18, ADR 0052): how fast the dashboard and the certificate list open in
// Chromium over a large inventory, and how much JavaScript the first page loads.
// 1. A fresh database; issuance starts and the inventory is seeded in SQL (bench/inventory/seed.mjs,
//    BENCH_CERTIFICATES, default 1,000,000); auth, deployment-dispatch and api-gateway start.
// 2. Debian's chromium (playwright-core, /usr/bin/chromium; never a downloaded browser) signs in
//    once with the admin key, then opens each page BENCH_RUNS times from a fresh navigation:
//    Largest Contentful Paint (PerformanceObserver) and "interactive", the time from navigation
//    start until the page shows its data (the dashboard: every number; the list: its first
//    page of rows and the page count) and answers a click.
// 3. The initial JS: the gzipped size of the scripts index.html loads (lazy chunks apart).
// Targets: both pages interactive in under 1.5 s, initial JS under 300 kB gzipped.
// Run with `npm run bench:web` (BENCH_CERTIFICATES=100000 for a quick run).
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { cleanups, log, median, positiveNumberEnv, ROOT, round, runBench } from '../lib/harness.mjs';
import { benchSystem, RESULTS_DIR, startService } from '../lib/services.mjs';
import { seedInventory } from '../inventory/seed.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');
const { chromium } = require('playwright-core');

const TARGET_INTERACTIVE_MS = 1500;
const TARGET_INITIAL_JS_KB = 300;
const settings = {
  certificates: Math.round(positiveNumberEnv('BENCH_CERTIFICATES', 1_000_000)),
  runs: Math.round(positiveNumberEnv('BENCH_RUNS', 5)),
  chromium: process.env.CERTLANE_CHROMIUM ?? '/usr/bin/chromium',
  enforceTargets: /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};

/** Gzipped kB of the scripts and styles index.html loads, and of every lazy chunk. */
function bundleSizes() {
  const web = join(ROOT, 'dist', 'web');
  const html = readFileSync(join(web, 'index.html'), 'utf8');
  const initial = [...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  const gz = (name) => gzipSync(readFileSync(join(web, 'assets', name))).length / 1024;
  const all = readdirSync(join(web, 'assets'));
  return {
    initial_js_kb_gzip: round(
      initial.filter((n) => n.endsWith('.js')).reduce((t, n) => t + gz(n), 0),
      1,
    ),
    initial_css_kb_gzip: round(
      initial.filter((n) => n.endsWith('.css')).reduce((t, n) => t + gz(n), 0),
      1,
    ),
    lazy_js_kb_gzip: round(
      all.filter((n) => n.endsWith('.js') && !initial.includes(n)).reduce((t, n) => t + gz(n), 0),
      1,
    ),
  };
}

/** Opens `path` afresh; LCP and the time until `ready` holds, both from navigation start. */
async function timePage(page, path, ready, arg) {
  await page.goto('about:blank');
  await page.goto(path, { waitUntil: 'commit' });
  await page.waitForFunction(ready, arg, { timeout: 60_000, polling: 'raf' });
  const interactive = await page.evaluate('performance.now()');
  const lcp = await page.evaluate(
    `new Promise((resolve) => {
      new PerformanceObserver((list) => {
        const entries = list.getEntries();
        resolve(entries.length ? entries[entries.length - 1].startTime : null);
      }).observe({ type: 'largest-contentful-paint', buffered: true });
      setTimeout(() => resolve(null), 2000);
    })`,
  );
  return { interactive_ms: round(interactive, 1), lcp_ms: lcp === null ? null : round(lcp, 1) };
}

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  log(`node ${process.version}, ${os.cpus().length} CPUs`);
  const bundle = bundleSizes();
  log(`bundle: ${JSON.stringify(bundle)}`);
  const system = await benchSystem(settings);
  const env = {
    SERVICE_EXPIRY_SWEEP_INTERVAL: '24h',
    SERVICE_RENEWAL_SWEEP_INTERVAL: '1h',
    SERVICE_POLICY_SWEEP_INTERVAL: '24h',
  };
  await startService(system, 'issuance', { extraEnv: env });
  const db = new Client({ connectionString: system.databaseUrl });
  await db.connect();
  cleanups.push(['database client', () => db.end()]);
  log(`seeding ${settings.certificates} certificates`);
  const seed = await seedInventory(db, { count: settings.certificates });
  log(`seeded in ${seed.steps.total_seconds} s`);
  const [, , gateway] = await Promise.all([
    startService(system, 'auth', { extraEnv: env }),
    startService(system, 'deployment-dispatch', { extraEnv: env }),
    startService(system, 'api-gateway', { extraEnv: env }),
  ]);

  const browser = await chromium.launch({ executablePath: settings.chromium, args: ['--no-sandbox'] });
  cleanups.push(['chromium', () => browser.close()]);
  const context = await browser.newContext({ ignoreHTTPSErrors: true, baseURL: gateway.url });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByRole('textbox', { name: 'API key' }).fill(system.env.SERVICE_AUTH_SECRET);
  await page.getByRole('button', { name: 'Sign in with API key' }).click();
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();

  // Functions, not strings: a string predicate is eval()ed, which the GUI's CSP refuses.
  const listReady = (pageNumber) =>
    !!document.querySelector('tbody tr') &&
    (document.querySelector('[data-testid=page-status]')?.textContent ?? '').startsWith(
      `Page ${pageNumber} of`,
    );
  const pages = {
    dashboard: [
      '/',
      () => {
        const values = [...document.querySelectorAll('.stat-value')];
        return (
          values.length > 0 &&
          values.every((e) => e.textContent !== '…') &&
          !!document.querySelector('.chart canvas')
        );
      },
      undefined,
    ],
    'certificate list': ['/certificates?status=Active', listReady, 1],
    'certificate list, page 400': ['/certificates?page=400', listReady, 400],
  };
  const results = {};
  for (const [name, [path, ready, arg]] of Object.entries(pages)) {
    const runs = [];
    for (let i = 0; i < settings.runs + 1; i++) runs.push(await timePage(page, path, ready, arg));
    runs.shift(); // the first opening warms the services' caches and the JIT
    const interactive = median(runs.map((r) => r.interactive_ms));
    const lcps = runs.map((r) => r.lcp_ms).filter((v) => v !== null);
    results[name] = {
      path,
      interactive_ms_median: interactive,
      lcp_ms_median: lcps.length ? median(lcps) : null,
      runs,
      under_target: interactive < TARGET_INTERACTIVE_MS,
    };
    log(`${name}: interactive ${interactive} ms, LCP ${results[name].lcp_ms_median} ms`);
  }
  const pass =
    Object.values(results).every((r) => r.under_target) && bundle.initial_js_kb_gzip < TARGET_INITIAL_JS_KB;
  const summary = {
    bench: 'web-gui',
    at: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    settings: { certificates: settings.certificates, runs: settings.runs },
    targets: { interactive_ms: TARGET_INTERACTIVE_MS, initial_js_kb_gzip: TARGET_INITIAL_JS_KB },
    seed_seconds: seed.steps.total_seconds,
    bundle,
    pages: results,
    pass,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `web-gui-${stamp}.json`);
  writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  log(
    `results in ${file}; ${pass ? 'targets met' : 'a target missed'}; wall ${round(process.uptime(), 1)} s`,
  );
  return summary;
}

await runBench(main, settings.enforceTargets);
