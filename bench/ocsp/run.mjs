#!/usr/bin/env node
// OCSP bench (issue 4): the revocation service's relying-party OCSP endpoint, cached responses,
// in the RFC 5019 GET form and the RFC 6960 POST form, under autocannon (50 connections, 10 s,
// TLS 1.3 verified), next to a bare node:https server returning a fixed buffer of the same size,
// in the same run. Real auth, issuance and revocation processes (dist/), a fresh database,
// certificate and NATS namespace. See bench/README.md (## ocsp). Run with `npm run bench:ocsp`.
//
// Environment switches (all optional):
//   BENCH_ROUNDS=1  BENCH_DURATION_SECONDS=10  BENCH_WARMUP_SECONDS=2  BENCH_CONNECTIONS=50
//   BENCH_SEQUENTIAL_SECONDS=5    1-connection latency runs (unloaded; 0 skips them)
//   BENCH_CPU_PROF=1              revocation and the bare server with --cpu-prof (bench/results/profiles-ocsp-<ts>/)
//   BENCH_NODE_ARGS="..."         extra node flags for the measured servers
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres  BENCH_NATS_URL=nats://127.0.0.1:4222
//   BENCH_ENFORCE_TARGETS=1       exit 2 when a target is missed (default: report only)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import {
  cleanups,
  fetchOnce,
  freePort,
  log,
  measure,
  median,
  ROOT,
  round,
  round3,
  startProcess,
  runBench,
} from '../lib/harness.mjs';
import { benchSystem, busClient, RESULTS_DIR, startService } from '../lib/services.mjs';
import { makeCsrs, pki } from '../pki/common.mjs';

const TARGET_GET_RATIO = 0.7;
const TARGET_GET_P99_MS = 3;
const TARGET_POST_RATIO = 0.4;
const ISSUER = 'iss-local';

const num = (name, fallback, { zero = false } = {}) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!zero && value === 0))
    throw new Error(`${name}=${raw} is not a positive number`);
  return value;
};
const settings = {
  rounds: Math.round(num('BENCH_ROUNDS', 1)),
  durationSeconds: num('BENCH_DURATION_SECONDS', 10),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 2),
  sequentialSeconds: num('BENCH_SEQUENTIAL_SECONDS', 5, { zero: true }),
  connections: num('BENCH_CONNECTIONS', 50),
  cpuProf: /^(1|true|yes|on)$/i.test(process.env.BENCH_CPU_PROF ?? ''),
  enforceTargets: /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};

/** Sends one request with node:https (verified, TLS 1.3) and returns status, headers and the raw body. */
async function fetchDer(url, ca, { method = 'GET', body } = {}) {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ca,
        agent: false,
        minVersion: 'TLSv1.3',
        headers: body ? { 'content-type': 'application/ocsp-request' } : {},
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  const system = await benchSystem(settings);
  const profileDir = settings.cpuProf ? join(RESULTS_DIR, `profiles-ocsp-${stamp}`) : undefined;

  log('starting auth, issuance and revocation');
  const [auth, issuance] = await Promise.all([
    startService(system, 'auth'),
    startService(system, 'issuance'),
  ]);
  const revocation = await startService(system, 'revocation', { cpuProfDir: profileDir });
  const bus = await busClient(system, settings.natsUrl, 'bench-ocsp');

  // Three certificates from the local CA; two revoked through issuance, one left good.
  const csrs = await makeCsrs(3, { algorithm: 'ECDSA', curve: 'P-256' });
  const issued = [];
  for (const der of csrs)
    issued.push(
      await bus.request('issuance.v1.issue-certificate', { csr_pem: pki.toPem('CERTIFICATE REQUEST', der) }),
    );
  const [good, revokedA, revokedB] = issued;
  await bus.request('issuance.v1.revoke-certificate', {
    issuer_id: ISSUER,
    serial_hex: revokedA.serial_hex,
    reason: 'keyCompromise',
  });
  await bus.request('issuance.v1.revoke-certificate', { issuer_id: ISSUER, serial_hex: revokedB.serial_hex });
  log(`issued ${issued.length} certificates, revoked ${revokedA.serial_hex} and ${revokedB.serial_hex}`);

  // OCSP requests made by openssl (SHA-1 CertID, no nonce: the cacheable form of RFC 5019).
  const dir = mkdtempSync(join(os.tmpdir(), 'certlane-bench-ocsp-'));
  cleanups.push([`temp dir ${dir}`, () => rmSync(dir, { recursive: true, force: true })]);
  const [issuingPem] = good.chain_pem.match(
    /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g,
  );
  writeFileSync(join(dir, 'issuing.pem'), issuingPem);
  writeFileSync(join(dir, 'chain.pem'), good.chain_pem);
  const openssl = (args) => {
    try {
      return execFileSync('openssl', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      throw new Error(`openssl ${args.join(' ')} failed: ${error.stderr ?? error.message}`);
    }
  };
  const requestFor = (name, serial) => {
    openssl([
      'ocsp',
      '-issuer',
      'issuing.pem',
      '-serial',
      `0x${serial}`,
      '-no_nonce',
      '-reqout',
      `${name}.req`,
    ]);
    return readFileSync(join(dir, `${name}.req`));
  };
  const targets = [
    { name: 'good', serial: good.serial_hex, status: 'good' },
    { name: 'revoked', serial: revokedA.serial_hex, status: 'revoked' },
  ].map((t) => {
    const der = requestFor(t.name, t.serial);
    return { ...t, der, getPath: `/ocsp/${ISSUER}/${pki.encodeOcspGetPath(der)}` };
  });

  /** GET and POST must give the same signed response, verified by openssl, with the expected status. */
  const check = async (target) => {
    const get = await fetchDer(`${revocation.url}${target.getPath}`, system.ca);
    target.firstGetHeaders ??= get.headers;
    const post = await fetchDer(`${revocation.url}/ocsp/${ISSUER}`, system.ca, {
      method: 'POST',
      body: target.der,
    });
    target.firstPostHeaders ??= post.headers;
    for (const [form, response] of [
      ['GET', get],
      ['POST', post],
    ]) {
      if (response.status !== 200 || response.headers['content-type'] !== 'application/ocsp-response')
        throw new Error(
          `OCSP ${form} ${target.name} answered ${response.status} ${response.headers['content-type']}`,
        );
      writeFileSync(join(dir, `${target.name}.${form}.resp`), response.body);
      const text = openssl([
        'ocsp',
        '-respin',
        `${target.name}.${form}.resp`,
        '-issuer',
        'issuing.pem',
        '-serial',
        `0x${target.serial}`,
        '-CAfile',
        'chain.pem',
      ]);
      if (!new RegExp(`0x${target.serial}: ${target.status}`, 'i').test(text)) return { ok: false, text };
    }
    if (!get.body.equals(post.body)) return { ok: false, text: 'GET and POST answered different responses' };
    return {
      ok: true,
      body: get.body,
      getHeaders: get.headers,
      postHeaders: post.headers,
      firstGetHeaders: target.firstGetHeaders,
      firstPostHeaders: target.firstPostHeaders,
    };
  };
  // The revocation reaches the revocation service through the outbox and the bus: wait for it.
  const deadline = Date.now() + 30_000;
  let checked;
  for (;;) {
    checked = await Promise.all(targets.map(check));
    if (checked.every((c) => c.ok)) break;
    if (Date.now() > deadline)
      throw new Error(`OCSP answers not as expected: ${checked.map((c) => c.text).join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // The first GET and POST went through Express (cache miss), these are answered from the
  // cache, before Express: the same headers.
  const names = (h) =>
    Object.keys(h)
      .filter((n) => n !== 'date')
      .sort()
      .join(',');
  const again = {
    GET: (await fetchDer(`${revocation.url}${targets[0].getPath}`, system.ca)).headers,
    POST: (
      await fetchDer(`${revocation.url}/ocsp/${ISSUER}`, system.ca, { method: 'POST', body: targets[0].der })
    ).headers,
  };
  for (const [form, first] of [
    ['GET', checked[0].firstGetHeaders],
    ['POST', checked[0].firstPostHeaders],
  ]) {
    if (names(first) !== names(again[form]))
      throw new Error(
        `cached ${form} headers differ from the first ${form}'s: ${names(again[form])} vs ${names(first)}`,
      );
    // (ETag and the times could legitimately differ if the response was re-signed meanwhile.)
    for (const name of ['content-type', 'content-security-policy', 'strict-transport-security'])
      if (first[name] !== again[form][name])
        throw new Error(`cached ${form} header ${name}: ${again[form][name]} vs ${first[name]}`);
  }
  targets.forEach((t, i) =>
    Object.assign(t, { response: checked[i].body, expected: checked[i].body.toString() }),
  );
  log(
    `OCSP answers verified by openssl: good ${targets[0].response.length} bytes, revoked ${targets[1].response.length} bytes; ` +
      `GET cache-control "${checked[0].getHeaders['cache-control']}", POST "${checked[0].postHeaders['cache-control']}"`,
  );

  // The bare server, answering the revoked response's bytes (the larger of the two).
  const bareBody = join(dir, 'bare.der');
  writeFileSync(bareBody, targets[1].response);
  const barePort = await freePort();
  const bareUrl = `https://127.0.0.1:${barePort}`;
  const bareArgs = profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-name=bare-https.cpuprofile']
    : (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const bare = await startProcess(
    'bare-https',
    join(ROOT, 'bench', 'ocsp', 'bare-server.mjs'),
    {
      BARE_BODY_FILE: bareBody,
      BARE_CERT_PATH: system.certPath,
      BARE_KEY_PATH: system.keyPath,
      BARE_PORT: String(barePort),
    },
    async () => (await fetchOnce(`${bareUrl}/`, { ca: system.ca })).status === 200,
    { execArgv: bareArgs },
  );

  const groups = () => ({
    revocation: [revocation.pid],
    'bare-https': [bare.pid],
    issuance: [issuance.pid],
    auth: [auth.pid],
  });
  const expectedBodies = new Set(targets.map((t) => t.expected));
  const bareExpected = targets[1].expected;
  const variants = {
    ocsp_get: {
      url: revocation.url,
      requests: targets.map((t) => ({ method: 'GET', path: t.getPath })),
      verifyBody: (body) => expectedBodies.has(body),
    },
    ocsp_post: {
      url: revocation.url,
      requests: targets.map((t) => ({
        method: 'POST',
        path: `/ocsp/${ISSUER}`,
        headers: { 'content-type': 'application/ocsp-request' },
        body: t.der,
      })),
      verifyBody: (body) => expectedBodies.has(body),
    },
    bare_get: {
      url: bareUrl,
      requests: targets.map((t) => ({ method: 'GET', path: t.getPath })),
      verifyBody: (body) => body === bareExpected,
    },
    bare_post: {
      url: bareUrl,
      requests: targets.map((t) => ({
        method: 'POST',
        path: `/ocsp/${ISSUER}`,
        headers: { 'content-type': 'application/ocsp-request' },
        body: t.der,
      })),
      verifyBody: (body) => body === bareExpected,
    },
  };
  const run = (variant, connections, durationSeconds) =>
    measure(
      {
        title: `${variant} ${connections === 1 ? 'sequential' : `${connections} connections`}`,
        ...variants[variant],
        connections,
        durationSeconds,
        ca: system.ca,
      },
      { only200: true, groups, warmupSeconds: settings.warmupSeconds },
    );

  const rounds = [];
  for (let i = 0; i < settings.rounds; i++) {
    // Alternate the order so drift in the machine does not favour one side.
    const order =
      i % 2 === 0
        ? ['bare_get', 'ocsp_get', 'bare_post', 'ocsp_post']
        : ['ocsp_post', 'bare_post', 'ocsp_get', 'bare_get'];
    const result = { round: i + 1, saturated: {}, sequential: {} };
    for (const variant of order)
      result.saturated[variant] = await run(variant, settings.connections, settings.durationSeconds);
    if (settings.sequentialSeconds > 0)
      for (const variant of ['bare_get', 'ocsp_get', 'ocsp_post'])
        result.sequential[variant] = await run(variant, 1, settings.sequentialSeconds);
    const s = result.saturated;
    result.get_ratio = round3(s.ocsp_get.rps_avg / s.bare_get.rps_avg);
    result.post_ratio = round3(s.ocsp_post.rps_avg / s.bare_post.rps_avg);
    result.post_ratio_vs_bare_get = round3(s.ocsp_post.rps_avg / s.bare_get.rps_avg);
    log(
      `round ${i + 1}: GET ${round(100 * result.get_ratio, 1)}% of bare, POST ${round(100 * result.post_ratio, 1)}%`,
    );
    rounds.push(result);
  }

  const med = (pick) => median(rounds.map(pick));
  const summary = {
    bench: 'ocsp',
    timestamp: new Date().toISOString(),
    rounds: settings.rounds,
    connections: settings.connections,
    duration_seconds: settings.durationSeconds,
    response_bytes: {
      good: targets[0].response.length,
      revoked: targets[1].response.length,
      bare: targets[1].response.length,
    },
    ocsp_get_rps: med((r) => r.saturated.ocsp_get.rps_avg),
    ocsp_post_rps: med((r) => r.saturated.ocsp_post.rps_avg),
    bare_get_rps: med((r) => r.saturated.bare_get.rps_avg),
    bare_post_rps: med((r) => r.saturated.bare_post.rps_avg),
    get_ratio: med((r) => r.get_ratio),
    post_ratio: med((r) => r.post_ratio),
    post_ratio_vs_bare_get: med((r) => r.post_ratio_vs_bare_get),
    ocsp_get_p50_ms: med((r) => r.saturated.ocsp_get.latency_ms.p50),
    ocsp_get_p99_ms: med((r) => r.saturated.ocsp_get.latency_ms.p99),
    ocsp_get_p99_ms_exact: med((r) => r.saturated.ocsp_get.latency_ms_exact.p99),
    bare_get_p99_ms: med((r) => r.saturated.bare_get.latency_ms.p99),
    bare_get_p99_ms_exact: med((r) => r.saturated.bare_get.latency_ms_exact.p99),
    ocsp_post_p99_ms: med((r) => r.saturated.ocsp_post.latency_ms.p99),
    sequential_p50_ms_exact:
      settings.sequentialSeconds > 0
        ? Object.fromEntries(
            ['bare_get', 'ocsp_get', 'ocsp_post'].map((v) => [
              v,
              med((r) => r.sequential[v].latency_ms_exact.p50),
            ]),
          )
        : null,
    sequential_p99_ms_exact:
      settings.sequentialSeconds > 0
        ? Object.fromEntries(
            ['bare_get', 'ocsp_get', 'ocsp_post'].map((v) => [
              v,
              med((r) => r.sequential[v].latency_ms_exact.p99),
            ]),
          )
        : null,
    cpu_ms_per_request: {
      ocsp_get: med((r) => r.saturated.ocsp_get.cpu_ms_per_request.revocation),
      ocsp_post: med((r) => r.saturated.ocsp_post.cpu_ms_per_request.revocation),
      bare_get: med((r) => r.saturated.bare_get.cpu_ms_per_request['bare-https']),
      bare_post: med((r) => r.saturated.bare_post.cpu_ms_per_request['bare-https']),
    },
    benchmark_cpu_ms_per_request: {
      ocsp_get: med((r) => r.saturated.ocsp_get.cpu_ms_per_request.benchmark),
      ocsp_post: med((r) => r.saturated.ocsp_post.cpu_ms_per_request.benchmark),
      bare_get: med((r) => r.saturated.bare_get.cpu_ms_per_request.benchmark),
      bare_post: med((r) => r.saturated.bare_post.cpu_ms_per_request.benchmark),
    },
    max_other_processes_cpu_percent: Math.max(
      ...rounds.flatMap((r) => Object.values(r.saturated).map((m) => m.cpu.other_processes_percent ?? 0)),
    ),
    targets: { get_ratio: TARGET_GET_RATIO, get_p99_ms: TARGET_GET_P99_MS, post_ratio: TARGET_POST_RATIO },
    node_version: process.version,
    cpu_count: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
  };
  // What the CPU costs per request would give on idle cores (less sensitive to steal than req/s):
  // the server and autocannon each run on one core, and together they share all of them.
  const cores = os.cpus().length;
  const capacity = (server, bench) => Math.min(1 / server, 1 / bench, cores / (server + bench));
  const estimate = (ours, bare) =>
    round3(
      capacity(summary.cpu_ms_per_request[ours], summary.benchmark_cpu_ms_per_request[ours]) /
        capacity(summary.cpu_ms_per_request[bare], summary.benchmark_cpu_ms_per_request[bare]),
    );
  summary.cpu_bound_ratio_estimate = {
    get: estimate('ocsp_get', 'bare_get'),
    post: estimate('ocsp_post', 'bare_post'),
  };
  // CPU stolen by the hypervisor (other VMs on the host) during the measured runs.
  summary.max_steal_percent = Math.max(
    ...rounds.flatMap((r) => Object.values(r.saturated).map((m) => m.cpu.machine_steal_percent ?? 0)),
  );
  summary.noisy_machine = summary.max_other_processes_cpu_percent > 10 || summary.max_steal_percent > 10;
  summary.pass_get_ratio = summary.get_ratio >= TARGET_GET_RATIO;
  summary.pass_get_p99 = summary.ocsp_get_p99_ms < TARGET_GET_P99_MS;
  summary.pass_post_ratio = summary.post_ratio >= TARGET_POST_RATIO;
  summary.pass = summary.pass_get_ratio && summary.pass_get_p99 && summary.pass_post_ratio;

  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `ocsp-${stamp}.json`);
  summary.results_file = file;
  if (profileDir) summary.profiles = profileDir;

  // Stop the measured servers before writing, so their CPU profiles are flushed.
  await Promise.all([revocation.stop(), bare.stop()]);
  writeFileSync(file, JSON.stringify({ settings, summary, rounds }, null, 2));

  const yes = (ok) => (ok ? 'MET' : 'MISS');
  const s = summary;
  console.log(
    [
      `OCSP relying-party endpoint, ${settings.rounds} round(s) of ${settings.durationSeconds} s at ${settings.connections} connections (medians):`,
      `  GET  (RFC 5019): ${s.ocsp_get_rps} req/s vs bare ${s.bare_get_rps} req/s -> ${round(100 * s.get_ratio, 1)}% (target >= ${100 * TARGET_GET_RATIO}%) ${yes(s.pass_get_ratio)}`,
      `       p99 ${s.ocsp_get_p99_ms} ms (exact ${s.ocsp_get_p99_ms_exact} ms; bare ${s.bare_get_p99_ms} ms) (target < ${TARGET_GET_P99_MS} ms) ${yes(s.pass_get_p99)}`,
      `  POST (RFC 6960): ${s.ocsp_post_rps} req/s vs bare ${s.bare_post_rps} req/s -> ${round(100 * s.post_ratio, 1)}% (target >= ${100 * TARGET_POST_RATIO}%) ${yes(s.pass_post_ratio)}; vs bare GET ${round(100 * s.post_ratio_vs_bare_get, 1)}%`,
      `  CPU ms/request, server: ${JSON.stringify(s.cpu_ms_per_request)}; autocannon: ${JSON.stringify(s.benchmark_cpu_ms_per_request)}`,
      `  ratio these CPU costs give on idle cores: GET ${s.cpu_bound_ratio_estimate.get}, POST ${s.cpu_bound_ratio_estimate.post}`,
      s.sequential_p50_ms_exact
        ? `  1 connection p50/p99 ms: ${JSON.stringify(s.sequential_p50_ms_exact)} / ${JSON.stringify(s.sequential_p99_ms_exact)}`
        : '',
      `  other processes' CPU: up to ${s.max_other_processes_cpu_percent}% of the machine, hypervisor steal up to ${s.max_steal_percent}%${s.noisy_machine ? ' (NOISY: figures unreliable)' : ''}`,
      `Results: ${file}`,
      `BENCH_RESULT ${JSON.stringify(summary)}`,
    ]
      .filter(Boolean)
      .join('\n'),
  );
  return summary;
}

await runBench(main, settings.enforceTargets);
