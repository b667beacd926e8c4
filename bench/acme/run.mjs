#!/usr/bin/env node
// ACME bench (issue 19): complete orders per second, end to end, against the Certlane ACME server
// (protocol-frontends + issuance from dist/, everything persisted in Postgres) and, in the same
// run, against Debian's `pebble` (the reference test server, validation sleep disabled) as the
// baseline. N concurrent clients, each with its own account (made once), run the full flow:
// newOrder -> authz -> challenge -> validation (http-01, answered by the driver's own responder)
// -> finalize -> certificate download. Every order names a fresh loopback IP address (127.x.y.z),
// so no authorization is reused and every order is validated. See bench/README.md (## acme).
// Run with `npm run bench:acme`.
//
// Environment switches (all optional):
//   BENCH_DURATION_SECONDS=15  BENCH_WARMUP_SECONDS=3  BENCH_CONCURRENCY=32
//   BENCH_SKIP_PEBBLE=1            no pebble phase
//   BENCH_SKIP_FLOOR=1             no floor phase (bench/acme/floor-server.mjs)
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres  BENCH_NATS_URL=nats://127.0.0.1:4222
//   BENCH_ENFORCE_TARGETS=1        exit 2 when a target is missed (default: report only)
//   BENCH_CPU_PROF=1               --cpu-prof on protocol-frontends and issuance (bench/results/profiles-*)
import { spawn } from 'node:child_process';
import { createHash, createSign, generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import {
  cleanups,
  cpuMeter,
  freePort,
  log,
  percentile,
  positiveNumberEnv,
  round,
  round3,
  runBench,
  sleep,
} from '../lib/harness.mjs';
import { fetchOnce, startProcess } from '../lib/harness.mjs';
import { benchSystem, RESULTS_DIR, startService } from '../lib/services.mjs';
import { pki } from '../pki/common.mjs';

const TARGET_ORDERS_PER_SECOND = 200;
const STEPS = ['newOrder', 'authz', 'challenge', 'validation', 'finalize', 'download'];

const num = positiveNumberEnv;
const settings = {
  durationSeconds: num('BENCH_DURATION_SECONDS', 15),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 3),
  concurrency: Math.round(num('BENCH_CONCURRENCY', 32)),
  skipPebble: /^(1|true|yes|on)$/i.test(process.env.BENCH_SKIP_PEBBLE ?? ''),
  skipFloor: /^(1|true|yes|on)$/i.test(process.env.BENCH_SKIP_FLOOR ?? ''),
  enforceTargets: /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};

const b64u = (data) => Buffer.from(data).toString('base64url');

/** The http-01 responder of every client: token -> key authorization, on every loopback address. */
async function startResponder() {
  const answers = new Map();
  const server = createServer((req, res) => {
    const token = req.url.split('/').pop();
    const answer = answers.get(token);
    res.writeHead(answer ? 200 : 404, { 'content-type': 'text/plain' });
    res.end(answer ?? '');
  });
  server.keepAliveTimeout = 30_000;
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '0.0.0.0', resolve));
  cleanups.push(['http-01 responder', () => new Promise((resolve) => server.close(resolve))]);
  return { port, answers };
}

/** A fresh loopback address per order (127.1.0.1 up, last octet 1-254), so every order is validated. */
let addressCounter = 0;
function nextAddress() {
  const n = addressCounter++;
  const last = 1 + (n % 254);
  const third = Math.floor(n / 254) % 256;
  const second = 1 + (Math.floor(n / (254 * 256)) % 127);
  return `127.${second}.${third}.${last}`;
}

/** An answer that never comes fails the run with the request that waited, instead of hanging it. */
const REQUEST_TIMEOUT_MS = 30_000;
class RequestTimeout extends Error {}

/** One ACME client: an ES256 account key, its account, and a nonce carried from answer to answer. */
class Client {
  constructor(directoryUrl, ca, agent) {
    this.directoryUrl = directoryUrl;
    this.ca = ca;
    this.agent = agent;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.jwk = { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
    this.thumbprint = createHash('sha256').update(JSON.stringify(this.jwk)).digest('base64url');
  }

  exchange(method, url, body) {
    this.requests = (this.requests ?? 0) + 1;
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method,
          ca: this.ca,
          agent: this.agent,
          headers: body === undefined ? {} : { 'content-type': 'application/jose+json' },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.headers['replay-nonce']) this.nonce = res.headers['replay-nonce'];
            let json;
            try {
              json = text && /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(text) : undefined;
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode, headers: res.headers, text, json });
          });
        },
      );
      req.setTimeout(REQUEST_TIMEOUT_MS, () =>
        req.destroy(new RequestTimeout(`${method} ${url} had no answer in ${REQUEST_TIMEOUT_MS / 1000} s`)),
      );
      req.once('error', reject);
      req.end(body);
    });
  }

  async start() {
    this.directory = (await this.exchange('GET', this.directoryUrl)).json;
    await this.exchange('HEAD', this.directory.newNonce);
    const account = await this.post(this.directory.newAccount, { termsOfServiceAgreed: true }, true);
    if (account.status !== 201 && account.status !== 200)
      throw new Error(`newAccount answered ${account.status}: ${account.text}`);
    this.kid = account.headers.location;
  }

  async post(url, payload, useJwk = false) {
    for (let attempt = 0; ; attempt++) {
      const protectedHeader = b64u(
        JSON.stringify({
          alg: 'ES256',
          nonce: this.nonce,
          url,
          ...(useJwk ? { jwk: this.jwk } : { kid: this.kid }),
        }),
      );
      const body = payload === '' ? '' : b64u(JSON.stringify(payload));
      const signer = createSign('SHA256');
      signer.update(`${protectedHeader}.${body}`);
      const signature = b64u(signer.sign({ key: this.privateKey, dsaEncoding: 'ieee-p1363' }));
      let answer;
      try {
        answer = await this.exchange(
          'POST',
          url,
          JSON.stringify({ protected: protectedHeader, payload: body, signature }),
        );
      } catch (error) {
        // A request the server never answered (seen with pebble) is sent again once, as clients do;
        // its nonce may be spent, and a badNonce answer brings a fresh one.
        if (!(error instanceof RequestTimeout) || attempt >= 1) throw error;
        this.timeouts = (this.timeouts ?? 0) + 1;
        continue;
      }
      // RFC 8555 6.5: a badNonce answer carries a fresh nonce; clients retry (pebble rejects some on purpose).
      if (answer.status === 400 && answer.json?.type === 'urn:ietf:params:acme:error:badNonce' && attempt < 5)
        continue;
      return answer;
    }
  }

  /** POST-as-GET until `done`, waiting 10 ms, then twice as long each time up to 200 ms. */
  async poll(url, done) {
    for (let i = 0, wait = 10; i < 500; i++, wait = Math.min(200, wait * 2)) {
      const answer = await this.post(url, '');
      if (done(answer.json)) return answer;
      if (answer.json?.status === 'invalid') throw new Error(`${url} is invalid: ${answer.text}`);
      await sleep(wait);
    }
    throw new Error(`${url} never reached the expected state`);
  }
}

/** One complete order; the time of each step is pushed to `timings`. */
async function oneOrder(client, responder, signer, timings) {
  const address = nextAddress();
  let t = performance.now();
  const step = (name) => {
    const now = performance.now();
    timings[name].push(now - t);
    t = now;
  };
  const order = await client.post(client.directory.newOrder, {
    identifiers: [{ type: 'ip', value: address }],
  });
  if (order.status !== 201) throw new Error(`newOrder answered ${order.status}: ${order.text}`);
  const orderUrl = order.headers.location;
  step('newOrder');
  const authzUrl = order.json.authorizations[0];
  const authz = (await client.post(authzUrl, '')).json;
  const challenge = authz.challenges.find((c) => c.type === 'http-01');
  responder.answers.set(challenge.token, `${challenge.token}.${client.thumbprint}`);
  step('authz');
  await client.post(challenge.url, {});
  step('challenge');
  await client.poll(orderUrl, (json) => json?.status === 'ready');
  responder.answers.delete(challenge.token);
  step('validation');
  const { der } = await pki.createCsr({
    subject: [],
    signer,
    subjectAltNames: [{ type: 'ip', value: address }],
  });
  const finalized = await client.post(order.json.finalize, { csr: b64u(der) });
  if (finalized.status !== 200) throw new Error(`finalize answered ${finalized.status}: ${finalized.text}`);
  const valid =
    finalized.json.status === 'valid'
      ? finalized
      : await client.poll(orderUrl, (json) => json?.status === 'valid');
  step('finalize');
  const certificate = await client.post(valid.json.certificate, '');
  if (certificate.status !== 200 || !certificate.text.includes('BEGIN CERTIFICATE'))
    throw new Error(`certificate download answered ${certificate.status}`);
  step('download');
}

/** `clients` loops of complete orders for `seconds`; orders/s and p50/p99 of each step. */
async function load(clients, responder, signer, seconds) {
  const timings = Object.fromEntries(STEPS.map((s) => [s, []]));
  const totals = [];
  let completed = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await oneOrder(client, responder, signer, timings);
        totals.push(performance.now() - t0);
        completed++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const stats = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: round3(percentile(sorted, 50)), p99: round3(percentile(sorted, 99)) };
  };
  return {
    orders: completed,
    elapsed_seconds: round(elapsed, 2),
    orders_per_second: round(completed / elapsed, 1),
    order_ms: stats(totals),
    step_ms: Object.fromEntries(STEPS.map((s) => [s, stats(timings[s])])),
  };
}

async function measureTarget(label, directoryUrl, ca, responder, signer, groups) {
  const agent = new Agent({ keepAlive: true, maxSockets: settings.concurrency * 2 });
  cleanups.push([`${label} agent`, () => agent.destroy()]);
  try {
    return await measureWith(agent, label, directoryUrl, ca, responder, signer, groups);
  } catch (error) {
    // Requests of the other clients still waiting on a server that stopped answering end here.
    agent.destroy();
    throw error;
  }
}

async function measureWith(agent, label, directoryUrl, ca, responder, signer, groups) {
  const clients = Array.from({ length: settings.concurrency }, () => new Client(directoryUrl, ca, agent));
  log(`${label}: ${clients.length} accounts`);
  for (const client of clients) await client.start();
  log(`${label}: warm-up ${settings.warmupSeconds} s`);
  await load(clients, responder, signer, settings.warmupSeconds);
  log(`${label}: measuring ${settings.durationSeconds} s at concurrency ${settings.concurrency}`);
  const meter = cpuMeter(groups);
  const requestsBefore = clients.reduce((sum, c) => sum + c.requests, 0);
  meter.start();
  const result = await load(clients, responder, signer, settings.durationSeconds);
  result.cpu = meter.stop();
  result.requests_per_order = round(
    (clients.reduce((sum, c) => sum + c.requests, 0) - requestsBefore) / Math.max(1, result.orders),
    1,
  );
  // Requests sent again after REQUEST_TIMEOUT_MS without an answer, over the whole phase.
  result.requests_timed_out = clients.reduce((sum, c) => sum + (c.timeouts ?? 0), 0);
  result.cpu_ms_per_order = Object.fromEntries(
    Object.entries(result.cpu.cpu_seconds).map(([g, s]) => [
      g,
      round((1000 * s) / Math.max(1, result.orders), 1),
    ]),
  );
  log(
    `${label}: ${result.orders_per_second} orders/s, order p50 ${result.order_ms.p50} ms, p99 ${result.order_ms.p99} ms`,
  );
  return result;
}

/**
 * pebble's rate. Debian's pebble sometimes stops answering every request under this load (its
 * in-memory store deadlocks, as pebble issues 38 and 119 describe); a phase in which it did is
 * thrown away and measured again on a fresh pebble, at most PEBBLE_ATTEMPTS times. The result
 * says how many attempts it took.
 */
const PEBBLE_ATTEMPTS = 3;
async function measurePebble(system, responder, signer) {
  for (let attempt = 1; attempt <= PEBBLE_ATTEMPTS; attempt++) {
    const pebble = await startPebble(system, responder.port);
    try {
      const result = await measureTarget('pebble', pebble.directoryUrl, system.ca, responder, signer, () => ({
        pebble: [pebble.pid],
      }));
      return { ...result, attempts: attempt };
    } catch (error) {
      if (!(error instanceof RequestTimeout)) throw error;
      log(
        `pebble stopped answering (${error.message}): attempt ${attempt} of ${PEBBLE_ATTEMPTS} thrown away; its goroutines: ${await pebble.dumpGoroutines()}`,
      );
    } finally {
      pebble.stop();
    }
  }
  log(`pebble stopped answering in each of ${PEBBLE_ATTEMPTS} attempts: no ratio`);
  return null;
}

async function countRows(system, table) {
  const { Client: PgClient } = (await import('pg')).default;
  const db = new PgClient({ connectionString: system.databaseUrl });
  await db.connect();
  try {
    return (await db.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;
  } finally {
    await db.end();
  }
}

/**
 * The floor: bench/acme/floor-server.mjs, the least a Node.js server persisting to Postgres does per
 * order (no framework, audit, rate limits, policy or issuance service), in its own schema of the
 * bench database.
 */
async function measureFloor(system, responder, signer) {
  const port = await freePort();
  const floor = await startProcess(
    'floor',
    join(import.meta.dirname, 'floor-server.mjs'),
    {
      FLOOR_PORT: String(port),
      FLOOR_DATABASE_URL: system.databaseUrl,
      FLOOR_TLS_CERT_PATH: system.certPath,
      FLOOR_TLS_KEY_PATH: system.keyPath,
      FLOOR_HTTP01_PORT: String(responder.port),
    },
    async () => (await fetchOnce(`https://127.0.0.1:${port}/directory`, { ca: system.ca })).status === 200,
  );
  try {
    const result = await measureTarget(
      'floor',
      `https://127.0.0.1:${port}/directory`,
      system.ca,
      responder,
      signer,
      () => ({
        floor: [floor.pid],
      }),
    );
    result.certificates_rows = await countRows(system, 'acme_floor.certificates');
    return result;
  } finally {
    await floor.stop();
  }
}

/** Debian's pebble on free ports, its http-01 port the driver's responder, no validation sleep. */
async function startPebble(system, responderPort) {
  const dir = mkdtempSync(join(os.tmpdir(), 'certlane-bench-pebble-'));
  const port = await freePort();
  const config = {
    pebble: {
      listenAddress: `127.0.0.1:${port}`,
      managementListenAddress: `127.0.0.1:${await freePort()}`,
      certificate: system.certPath,
      privateKey: system.keyPath,
      httpPort: responderPort,
      tlsPort: await freePort(),
      ocspResponderURL: '',
      externalAccountBindingRequired: false,
    },
  };
  writeFileSync(join(dir, 'pebble.json'), JSON.stringify(config));
  const child = spawn('pebble', ['-config', join(dir, 'pebble.json')], {
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_AUTHZREUSE: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  cleanups.push(['pebble', () => child.kill('SIGTERM')]);
  for (let i = 0; i < 100 && !output.includes('Listening on'); i++) await sleep(100);
  if (!output.includes('Listening on')) throw new Error(`pebble did not start:\n${output}`);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    pid: child.pid,
    directoryUrl: `https://127.0.0.1:${port}/dir`,
    stop: () => child.kill('SIGTERM'),
    /** SIGQUIT makes a Go program print every goroutine's stack and exit: where a hung pebble waits. */
    async dumpGoroutines() {
      child.kill('SIGQUIT');
      await Promise.race([exited, sleep(5000)]);
      const file = join(dir, 'goroutines.txt');
      writeFileSync(file, output);
      return file;
    },
  };
}

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  const responder = await startResponder();
  const system = await benchSystem(settings);
  const limits = {
    SERVICE_ACME_HTTP01_PORT: String(responder.port),
    SERVICE_ACME_NEW_ORDERS_PER_HOUR: '1000000',
    SERVICE_ACME_NEW_ORDERS_PER_IP_PER_HOUR: '10000000',
  };
  log('starting issuance and protocol-frontends');
  const cpuProfDir = /^(1|true|yes|on)$/i.test(process.env.BENCH_CPU_PROF ?? '')
    ? join(RESULTS_DIR, `profiles-${stamp}`)
    : undefined;
  const issuance = await startService(system, 'issuance', { cpuProfDir });
  const frontends = await startService(system, 'protocol-frontends', { extraEnv: limits, cpuProfDir });
  const { signer } = await new pki.SoftwareKeyProvider().generate({ algorithm: 'ECDSA', curve: 'P-256' });

  const results = {};
  results.certlane = await measureTarget(
    'certlane',
    `${frontends.url}/acme/directory`,
    system.ca,
    responder,
    signer,
    () => ({ 'protocol-frontends': [frontends.pid], issuance: [issuance.pid] }),
  );
  // Every order answered valid is a row of acme_certificates and of issuance's issued certificates.
  results.certlane.acme_certificates_rows = await countRows(system, 'protocol_frontends.acme_certificates');
  await frontends.stop();
  await issuance.stop();

  if (!settings.skipFloor) results.floor = await measureFloor(system, responder, signer);
  if (!settings.skipPebble) results.pebble = await measurePebble(system, responder, signer);

  const summary = {
    bench: 'acme',
    timestamp: new Date().toISOString(),
    concurrency: settings.concurrency,
    duration_seconds: settings.durationSeconds,
    certlane_orders_per_second: results.certlane.orders_per_second,
    pebble_orders_per_second: results.pebble?.orders_per_second ?? null,
    floor_orders_per_second: results.floor?.orders_per_second ?? null,
    ratio_to_floor: results.floor
      ? round(results.certlane.orders_per_second / results.floor.orders_per_second, 2)
      : null,
    ratio_to_pebble: results.pebble
      ? round(results.certlane.orders_per_second / results.pebble.orders_per_second, 2)
      : null,
    certlane_step_ms: results.certlane.step_ms,
    pebble_step_ms: results.pebble?.step_ms ?? null,
    target_orders_per_second: TARGET_ORDERS_PER_SECOND,
    node_version: process.version,
    cpu_count: os.cpus().length,
  };
  summary.pass =
    summary.certlane_orders_per_second >= TARGET_ORDERS_PER_SECOND &&
    (summary.ratio_to_pebble === null || summary.ratio_to_pebble >= 1);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `acme-${stamp}.json`);
  writeFileSync(file, JSON.stringify({ settings, summary, results }, null, 2));
  const steps = (stepMs) => STEPS.map((s) => `${s} ${stepMs[s].p50}/${stepMs[s].p99}`).join(', ');
  console.log(
    [
      `ACME complete orders (newOrder -> authz -> challenge -> http-01 validation -> finalize -> download), ${settings.durationSeconds} s at concurrency ${settings.concurrency}:`,
      `  Certlane (Postgres, issuance over the bus): ${summary.certlane_orders_per_second} orders/s (target >= ${TARGET_ORDERS_PER_SECOND}); ${results.certlane.acme_certificates_rows} certificates stored`,
      `    order p50/p99 ${results.certlane.order_ms.p50}/${results.certlane.order_ms.p99} ms; steps p50/p99 ms: ${steps(results.certlane.step_ms)}`,
      `    ${results.certlane.requests_per_order} requests/order; CPU ms/order ${JSON.stringify(results.certlane.cpu_ms_per_order)}; other processes ${results.certlane.cpu.other_processes_percent}%`,
      results.floor
        ? `  floor (one Node.js process, node:https + node-postgres, no framework, audit or rate limits): ${results.floor.orders_per_second} orders/s; ratio Certlane/floor ${summary.ratio_to_floor}; ${results.floor.certificates_rows} certificates stored\n    order p50/p99 ${results.floor.order_ms.p50}/${results.floor.order_ms.p99} ms; steps p50/p99 ms: ${steps(results.floor.step_ms)}\n    ${results.floor.requests_per_order} requests/order; CPU ms/order ${JSON.stringify(results.floor.cpu_ms_per_order)}; other processes ${results.floor.cpu.other_processes_percent}%`
        : '  floor: skipped',
      results.pebble
        ? `  pebble (in memory, no validation sleep): ${summary.pebble_orders_per_second} orders/s; ratio Certlane/pebble ${summary.ratio_to_pebble}\n    order p50/p99 ${results.pebble.order_ms.p50}/${results.pebble.order_ms.p99} ms; steps p50/p99 ms: ${steps(results.pebble.step_ms)}\n    ${results.pebble.requests_per_order} requests/order, ${results.pebble.requests_timed_out} sent again after ${REQUEST_TIMEOUT_MS / 1000} s without an answer, measured in attempt ${results.pebble.attempts}; CPU ms/order ${JSON.stringify(results.pebble.cpu_ms_per_order)}; other processes ${results.pebble.cpu.other_processes_percent}%`
        : `  pebble: ${settings.skipPebble ? 'skipped' : 'no ratio (it stopped answering in every attempt)'}`,
      `  ${summary.pass ? 'MET' : 'MISS'}`,
      `Results: ${file}`,
      `BENCH_RESULT ${JSON.stringify(summary)}`,
    ].join('\n'),
  );
  return summary;
}

await runBench(main, settings.enforceTargets);
