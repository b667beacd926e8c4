#!/usr/bin/env node
// Agent fleet bench (issue 7, ADR 0026/0027): simulated agents heartbeating every 60 s
// (POST /api/v1/agents/{id}/heartbeat) and polling work every 30 s (GET /api/v1/agents/{id}/work)
// against the gateway, one load process, many TLS connections, each agent with its own key.
// 1. A fresh database; auth, issuance and deployment-dispatch start (migrations), then the largest
//    fleet is seeded in SQL: per agent an `agents` row (api_key_hash), an `api_keys` row (SHA-256 hex
//    of the key, actor `agent.<id>`), the r-agent grant in `actor_roles` and a `users` row, exactly
//    what registration (auth.v1.create-api-key) writes. BENCH_WORK_SHARE of the agents (2 %) find
//    work: half an AwaitingCSR issuance job, half a Pending deployment job (certificate, version,
//    job rows in issuance).
// 2. api-gateway starts; a few seeded agents heartbeat and poll through it (their own key), one
//    agent's key is refused on another agent's heartbeat (403).
// 3. The ramp: for each fleet size N, autocannon at overallRate N/60 + N/30 req/s, each request
//    the next agent in turn with its own Authorization header (each agent: one heartbeat and two
//    polls per 60 s); a step holds when every response is 200, TLS verified, the rate is reached
//    (>= 95 %) and p99 < 50 ms. The ramp stops at the first step that does not hold.
// Target: 50,000 agents (2,500 req/s) with no errors. See bench/README.md (## agent-fleet).
// Run with `npm run bench:agent-fleet`.
//
// Environment switches (all optional):
//   BENCH_FLEET_STEPS=1000,2500,5000,10000,20000,35000,50000  fleet sizes, in order
//   BENCH_WORK_SHARE=0.02       share of agents with work   BENCH_CONNECTIONS=200
//   BENCH_STEP_SECONDS=20       measured seconds per step
//   BENCH_WARMUP_SECONDS        default: one pass over the fleet (every agent sends a request, 20 s)
//   BENCH_CPU_PROF=1            run gateway, issuance and deployment-dispatch with --cpu-prof (profiles in
//                               bench/results/profiles-<ts>/; reduce with gateway-roundtrip/profile-summary.mjs)
//   BENCH_TARGET_P99_MS=50      BENCH_ENFORCE_TARGETS=1 (exit 2 when 50,000 agents do not hold)
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres  BENCH_NATS_URL=nats://127.0.0.1:4222
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import {
  cleanups,
  cpuMeter,
  dbCounters,
  fetchOnce,
  log,
  measure,
  percentile,
  positiveNumberEnv,
  round,
  round3,
  runBench,
  sleep,
} from '../lib/harness.mjs';
import { leanHttpsPool } from '../lib/lean-https.mjs';
import { benchSystem, RESULTS_DIR, startService } from '../lib/services.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const TARGET_AGENTS = 50_000;
const flag = (name) => /^(1|true|yes|on)$/i.test(process.env[name] ?? '');
const num = positiveNumberEnv;
const settings = {
  steps: (process.env.BENCH_FLEET_STEPS || '1000,2500,5000,10000,20000,35000,50000')
    .split(',')
    .map((s) => Math.round(Number(s.trim())))
    .filter((n) => Number.isFinite(n) && n > 0),
  workShare: num('BENCH_WORK_SHARE', 0.02),
  connections: Math.round(num('BENCH_CONNECTIONS', 200)),
  stepSeconds: num('BENCH_STEP_SECONDS', 20),
  // 0 = one pass over the fleet: every agent has sent a request, as in a fleet that has been running.
  warmupSeconds: process.env.BENCH_WARMUP_SECONDS ? num('BENCH_WARMUP_SECONDS', 20) : 0,
  targetP99Ms: num('BENCH_TARGET_P99_MS', 50),
  // paced (default): the open loop over lean sockets; node-https: the same loop over node:https.
  driver: ['autocannon', 'node-https'].includes(process.env.BENCH_DRIVER ?? '')
    ? process.env.BENCH_DRIVER
    : 'paced',
  enforceTargets: flag('BENCH_ENFORCE_TARGETS'),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};
if (settings.steps.length === 0) throw new Error('BENCH_FLEET_STEPS has no fleet size');

const sha256Hex = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
const agentId = (i) => `fa-${String(i).padStart(6, '0')}`;
// Every `workEvery`-th agent has work, so every prefix of the fleet (each step) has the same share.
const workEvery = Math.max(1, Math.round(1 / settings.workShare));

/**
 * Seeds `count` agents with their keys (key i = sha256hex(seed:i), computed in SQL and here alike)
 * and the work of every `workEvery`-th agent. One statement per table.
 */
async function seedFleet(databaseUrl, count, keySeed) {
  const db = new Client({ connectionString: databaseUrl });
  const steps = {};
  const timed = async (name, sql, params) => {
    const started = performance.now();
    const result = await db.query(sql, params);
    steps[name] = { seconds: round((performance.now() - started) / 1000, 2), rows: result.rowCount };
  };
  const started = performance.now();
  const keyOf = `encode(sha256(convert_to($2::text || ':' || n, 'UTF8')), 'hex')`;
  const idOf = `'fa-' || lpad(n::text, 6, '0')`;
  await db.connect();
  try {
    await db.query('BEGIN');
    await timed(
      'fleet_keys',
      `CREATE TEMP TABLE fleet_keys ON COMMIT DROP AS
         SELECT n, ${idOf} AS id, encode(sha256(convert_to(${keyOf}, 'UTF8')), 'hex') AS key_hash,
                'key-fleet-' || n AS key_id
           FROM generate_series(0, $1::int - 1) n`,
      [count, keySeed],
    );
    await timed(
      'api_keys',
      `INSERT INTO auth.api_keys (id, name, key_hash, actor_id, created_by)
       SELECT key_id, 'agent.' || id, key_hash, 'agent.' || id, 'bench' FROM fleet_keys`,
    );
    await timed(
      'actor_roles',
      `INSERT INTO auth.actor_roles (actor_id, role_id, granted_by) SELECT 'agent.' || id, 'r-agent', 'bench' FROM fleet_keys`,
    );
    await timed(
      'users',
      `INSERT INTO auth.users (id, kind) SELECT 'agent.' || id, 'api-key' FROM fleet_keys`,
    );
    await timed(
      'agents',
      `INSERT INTO deployment_dispatch.agents (id, name, hostname, api_key_hash, api_key_id, os, architecture, version, registered_at)
       SELECT id, 'fleet-agent-' || n, 'host-' || n || '.fleet.test', key_hash, key_id, 'linux', 'amd64', '1.0.0',
              now() - interval '1 day'
         FROM fleet_keys`,
    );
    // Work: agent n with n % workEvery = 0. Even multiples: an AwaitingCSR issuance job (certificate
    // Pending, no version); odd: a Pending deployment job of the certificate's current version.
    await timed(
      'issuer',
      `INSERT INTO issuance.issuers (id, name, kind, config_sealed) VALUES ('iss-fleet', 'Fleet bench issuer', 'digicert', 'v1.bench-placeholder')`,
    );
    await timed(
      'certificates',
      `INSERT INTO issuance.certificates (id, name, common_name, sans, environment, issuer_id, renewal_policy_id, agent_id,
         source, status, key_algorithm, not_before, expires_at, current_version_id, created_at, updated_at)
       SELECT 'fc-' || n, 'fleet ' || n, 'svc-' || n || '.fleet.test', ARRAY['svc-' || n || '.fleet.test'], 'production',
              'iss-fleet', 'rp-default', id, 'Agent',
              CASE WHEN (n / $1::int) % 2 = 0 THEN 'Pending' ELSE 'Active' END, 'ECDSA-P256',
              CASE WHEN (n / $1::int) % 2 = 0 THEN NULL ELSE now() - interval '1 day' END,
              CASE WHEN (n / $1::int) % 2 = 0 THEN NULL ELSE now() + interval '89 days' END,
              CASE WHEN (n / $1::int) % 2 = 0 THEN NULL ELSE 'fv-' || n END,
              now() - interval '1 hour', now() - interval '1 hour'
         FROM fleet_keys WHERE n % $1::int = 0`,
      [workEvery],
    );
    await timed(
      'certificate_versions',
      `INSERT INTO issuance.certificate_versions (id, certificate_id, version, serial_number, fingerprint_sha256, key_algorithm,
         key_size, issued_at, not_before, not_after, cert_pem, chain_pem, csr_pem, issuer_id)
       SELECT current_version_id, id, 1, md5(id), md5(id) || md5(current_version_id), 'ECDSA-P256', 256,
              not_before, not_before, expires_at,
              '-----BEGIN CERTIFICATE-----' || chr(10) || 'MIIB' || chr(10) || '-----END CERTIFICATE-----' || chr(10),
              '', NULL, issuer_id
         FROM issuance.certificates WHERE id LIKE 'fc-%' AND current_version_id IS NOT NULL`,
    );
    await timed(
      'jobs',
      `INSERT INTO issuance.jobs (id, type, status, certificate_id, agent_id, target_id, requested_by, version_id,
         created_at, updated_at, scheduled_at)
       SELECT 'fj-' || substr(c.id, 4), CASE WHEN c.current_version_id IS NULL THEN 'Issuance' ELSE 'Deployment' END,
              CASE WHEN c.current_version_id IS NULL THEN 'AwaitingCSR' ELSE 'Pending' END,
              c.id, c.agent_id, CASE WHEN c.current_version_id IS NULL THEN '' ELSE 'ft-' || substr(c.id, 4) END,
              'bench', c.current_version_id, c.created_at, c.created_at, c.created_at
         FROM issuance.certificates c WHERE c.id LIKE 'fc-%'`,
    );
    await db.query('COMMIT');
    await timed(
      'vacuum',
      'VACUUM (ANALYZE) auth.api_keys, auth.actor_roles, auth.users, deployment_dispatch.agents, issuance.certificates, issuance.jobs',
    );
  } finally {
    await db.end();
  }
  steps.total_seconds = round((performance.now() - started) / 1000, 2);
  return steps;
}

/**
 * The paced driver (default): an open loop over a keep-alive pool of at most `connections` TLS
 * sockets (bench/lib/lean-https.mjs, verified against the bench CA, TLS 1.3 only; node:https's
 * per-request objects cost the load process about 0.2 ms of CPU on the cores the system uses, and
 * BENCH_DRIVER=node-https runs the same loop over node:https for comparison). Request n is due at
 * start + n/rate and goes to `next(n)`; latency counts from the due time, so queueing in the
 * client or the server is not hidden (no coordinated omission). autocannon's overallRate sends each
 * connection's share of a second back to back at the start of every second, which a fleet of
 * independent agents does not do (BENCH_DRIVER=autocannon runs it anyway, for comparison).
 */
function fleetPool({ origin, ca, connections, driver }) {
  if (driver === 'paced') return { lean: leanHttpsPool({ origin, ca, connections }) };
  const agent = new HttpsAgent({
    keepAlive: true,
    maxSockets: connections,
    // Round-robin over the sockets, as a fleet of separate agents would spread: with LIFO most
    // sockets sat idle past the gateway's 5 s keep-alive and were reset as they were picked up.
    scheduling: 'fifo',
    ca,
    minVersion: 'TLSv1.3',
    rejectUnauthorized: true,
  });
  return { agent, seen: new WeakSet() };
}

async function pacedFleet({ origin, pool, rate, seconds, next, timeoutMs = 10_000 }) {
  const { agent, seen, lean } = pool;
  const tls = lean ? lean.tls : { verified: 0, failures: [] };
  const verifiedBefore = tls.verified;
  const failuresBefore = tls.failures.length;
  const latencies = [];
  // Polls (GET) read; heartbeats (POST) write and commit: their tails can differ.
  const byMethod = { GET: [], POST: [] };
  const statusCodes = {};
  let errors = 0;
  let mismatches = 0;
  const errorSamples = new Set();
  const record = (spec, scheduled, status, body) => {
    statusCodes[status] = (statusCodes[status] ?? 0) + 1;
    if (status !== 200) {
      if (errorSamples.size < 5) errorSamples.add(`${status} ${body.slice(0, 200)}`);
    } else if (spec.expect && !body.includes(spec.expect)) {
      mismatches++;
    } else {
      const latency = performance.now() - scheduled;
      latencies.push(latency);
      byMethod[spec.method]?.push(latency);
    }
  };
  const leanOne = (spec, scheduled) =>
    lean.request(spec).then(
      ({ status, body }) => record(spec, scheduled, status, body),
      (error) => {
        errors++;
        if (errorSamples.size < 5) errorSamples.add(error.message);
      },
    );
  const one = (spec, scheduled) =>
    lean
      ? leanOne(spec, scheduled)
      : new Promise((done) => {
          const fail = (message) => {
            errors++;
            if (errorSamples.size < 5) errorSamples.add(message);
            done();
          };
          const req = httpsRequest(
            `${origin}${spec.path}`,
            { agent, method: spec.method, headers: spec.headers, timeout: timeoutMs },
            (res) => {
              const chunks = [];
              res.on('data', (c) => chunks.push(c));
              res.on('end', () => {
                record(spec, scheduled, res.statusCode, Buffer.concat(chunks).toString('utf8'));
                done();
              });
              res.on('error', (e) => fail(e.message));
            },
          );
          req.on('socket', (socket) => {
            if (seen.has(socket)) return;
            seen.add(socket);
            socket.once('secureConnect', () => {
              if (socket.authorized && socket.getProtocol() === 'TLSv1.3') tls.verified++;
              else tls.failures.push(String(socket.authorizationError ?? socket.getProtocol()));
            });
          });
          req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
          req.on('error', (e) => fail(e.message));
          if (spec.body !== undefined) req.write(spec.body);
          req.end();
        });
  {
    const interval = 1000 / rate;
    const total = Math.round(seconds * rate);
    const inflight = [];
    let sent = 0;
    const start = performance.now();
    while (sent < total) {
      const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
      for (; sent < due; sent++) inflight.push(one(next(sent), start + sent * interval));
      await sleep(1);
    }
    await Promise.all(inflight);
    const elapsed = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    const non200 = Object.entries(statusCodes)
      .filter(([code]) => code !== '200')
      .reduce((sum, [, count]) => sum + count, 0);
    return {
      requests_total: total,
      achieved_rps: round(latencies.length / elapsed, 1),
      p50_ms: round3(percentile(latencies, 50)),
      p90_ms: round3(percentile(latencies, 90)),
      p99_ms: round3(percentile(latencies, 99)),
      max_ms: round3(latencies.at(-1)),
      by_kind: Object.fromEntries(
        Object.entries({ poll: byMethod.GET, heartbeat: byMethod.POST }).map(([kind, list]) => {
          list.sort((a, b) => a - b);
          return [kind, { p50_ms: round3(percentile(list, 50)), p99_ms: round3(percentile(list, 99)) }];
        }),
      ),
      errors: errors + non200 + mismatches,
      socket_errors: errors,
      mismatches,
      error_samples: [...errorSamples],
      status_codes: statusCodes,
      tls_connections_verified: tls.verified - verifiedBefore,
      tls_failures: tls.failures.slice(failuresBefore),
    };
  }
}

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const cpuProfDir = flag('BENCH_CPU_PROF') ? join(RESULTS_DIR, `profiles-${stamp}`) : undefined;
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  const system = await benchSystem(settings);
  const serviceEnv = { SERVICE_EXPIRY_SWEEP_INTERVAL: '24h' };
  log('starting auth, issuance and deployment-dispatch');
  const [auth, issuance, dispatch] = await Promise.all([
    startService(system, 'auth', { extraEnv: serviceEnv }),
    startService(system, 'issuance', { extraEnv: serviceEnv, cpuProfDir }),
    startService(system, 'deployment-dispatch', { extraEnv: serviceEnv, cpuProfDir }),
  ]);

  const fleet = Math.max(...settings.steps);
  const keySeed = randomBytes(16).toString('hex');
  log(`seeding ${fleet} agents with their keys (${(100 / workEvery).toFixed(1)} % with work)`);
  const seed = await seedFleet(system.databaseUrl, fleet, keySeed);
  log(`seeded in ${seed.total_seconds} s`);
  // The Authorization header of every agent, built once.
  const authorization = Array.from({ length: fleet }, (_, i) => `Bearer ${sha256Hex(`${keySeed}:${i}`)}`);

  log('starting api-gateway');
  const gateway = await startService(system, 'api-gateway', { extraEnv: serviceEnv, cpuProfDir });
  const groups = () => ({
    'api-gateway': [gateway.pid],
    auth: [auth.pid],
    issuance: [issuance.pid],
    'deployment-dispatch': [dispatch.pid],
  });

  // Seeded agents authenticate as registered ones: heartbeat and poll with their own key.
  const heartbeatBody = JSON.stringify({ version: '1.0.0', os: 'linux', architecture: 'amd64' });
  const call = (i, kind, as = i) =>
    fetchOnce(`${gateway.url}/api/v1/agents/${agentId(i)}/${kind}`, {
      method: kind === 'heartbeat' ? 'POST' : 'GET',
      headers: {
        authorization: authorization[as],
        ...(kind === 'heartbeat' ? { 'content-type': 'application/json' } : {}),
      },
      body: kind === 'heartbeat' ? heartbeatBody : undefined,
      ca: system.ca,
    });
  const checks = [];
  for (const i of [0, 1, 2, workEvery, fleet - 1]) {
    const heartbeat = await call(i, 'heartbeat');
    const work = await call(i, 'work');
    const count = work.status === 200 ? JSON.parse(work.text).count : undefined;
    const expected = i % workEvery === 0 ? 1 : 0;
    const lastHeartbeat = heartbeat.status === 200 ? JSON.parse(heartbeat.text).last_heartbeat_at : null;
    checks.push({
      agent: agentId(i),
      heartbeat: heartbeat.status,
      last_heartbeat_at: lastHeartbeat,
      work: work.status,
      jobs: count,
    });
    if (heartbeat.status !== 200 || work.status !== 200 || count !== expected || !lastHeartbeat)
      throw new Error(
        `seeded agent ${agentId(i)}: heartbeat ${heartbeat.status} ${heartbeat.text.slice(0, 200)}, work ${work.status} ${work.text.slice(0, 200)} (expected ${expected} jobs)`,
      );
  }
  const foreign = await call(1, 'heartbeat', 2);
  checks.push({ agent: agentId(1), with_key_of: agentId(2), heartbeat: foreign.status });
  if (foreign.status !== 403)
    throw new Error(`agent 2's key on agent 1's heartbeat answered ${foreign.status}`);
  log(`seeded agents authenticate: ${JSON.stringify(checks)}`);

  const steps = [];
  let held;
  for (const agents of settings.steps) {
    const rate = Math.round(agents / 60 + agents / 30);
    const warmupSeconds = settings.warmupSeconds || Math.max(5, Math.ceil(agents / rate));
    // Request n goes to agent n mod N; its kind cycles so that every agent sends one heartbeat and
    // two polls per 3N requests (per 60 s at this rate), spread evenly over the window.
    const spec = (n) => {
      const index = n % agents;
      const headers = { authorization: authorization[index] };
      if ((index + Math.floor(n / agents)) % 3 === 0) {
        headers['content-type'] = 'application/json';
        return {
          method: 'POST',
          path: `/api/v1/agents/${agentId(index)}/heartbeat`,
          headers,
          body: heartbeatBody,
        };
      }
      // A poll: the agents with work get their one job on every poll (it stays open).
      const expect = `"count":${index % workEvery === 0 ? 1 : 0}`;
      return { method: 'GET', path: `/api/v1/agents/${agentId(index)}/work`, headers, expect };
    };
    const connections = Math.min(settings.connections, agents);
    log(`step ${agents} agents: ${rate} req/s over at most ${connections} connections (${settings.driver})`);
    const step = {
      agents,
      target_rps: rate,
      connections,
      driver: settings.driver,
      warmup_seconds: warmupSeconds,
    };
    try {
      let run;
      if (settings.driver === 'autocannon') {
        let n = 0;
        const setupRequest = (req) => {
          // autocannon checks no bodies: the expected job count is only used by the paced driver.
          const { method, path, headers, body } = spec(n++);
          return {
            ...req,
            method,
            path,
            ...(body === undefined ? {} : { body }),
            headers: { ...req.headers, ...headers },
          };
        };
        const cannonRun = await measure(
          {
            title: `${agents} agents`,
            url: gateway.url,
            requests: [{ setupRequest }],
            connections,
            overallRate: rate,
            durationSeconds: settings.stepSeconds,
            ca: system.ca,
          },
          {
            only200: true,
            groups,
            database: system.database,
            databaseServerUrl: settings.databaseServerUrl,
            warmupSeconds,
          },
        );
        run = {
          achieved_rps: cannonRun.rps_completed_over_duration,
          requests_total: cannonRun.requests_total,
          p50_ms: cannonRun.latency_ms_exact.p50,
          p99_ms: cannonRun.latency_ms_exact.p99,
          max_ms: cannonRun.latency_ms_exact.max,
          p99_ms_autocannon: cannonRun.latency_ms.p99,
          errors: cannonRun.errors + cannonRun.timeouts + cannonRun.non2xx,
          status_codes: cannonRun.status_codes,
          tls_connections_verified: cannonRun.tls_connections_verified,
          cpu: cannonRun.cpu,
          postgres_transactions_per_request: cannonRun.postgres_transactions_per_request,
        };
      } else {
        // One pool per step: the warm-up opens the connections, the measurement reuses them.
        const pool = fleetPool({ origin: gateway.url, ca: system.ca, connections, driver: settings.driver });
        cleanups.push([
          `connection pool of step ${agents}`,
          () => (pool.lean ? pool.lean.close() : pool.agent.destroy()),
        ]);
        const drive = (seconds, offset) =>
          pacedFleet({ origin: gateway.url, pool, rate, seconds, next: (n) => spec(n + offset) });
        log(`${agents} agents: warm-up ${warmupSeconds} s`);
        const warmup = await drive(warmupSeconds, 0);
        if (warmup.errors || warmup.tls_failures.length)
          throw new Error(
            `warm-up: ${warmup.errors} errors ${JSON.stringify(warmup.error_samples)} ${warmup.tls_failures}`,
          );
        log(`${agents} agents: measuring ${settings.stepSeconds} s`);
        const dbBefore = await dbCounters(settings.databaseServerUrl, system.database);
        const meter = cpuMeter(groups);
        meter.start();
        run = await drive(settings.stepSeconds, Math.round(warmupSeconds * rate));
        run.cpu = meter.stop();
        await sleep(1100);
        const dbAfter = await dbCounters(settings.databaseServerUrl, system.database);
        run.postgres_transactions_per_request = round3((dbAfter.xacts - dbBefore.xacts) / run.requests_total);
        if (pool.lean) pool.lean.close();
        else pool.agent.destroy();
        // Sockets opened by the warm-up were verified there; the measurement may open no new one.
        run.tls_connections_verified += warmup.tls_connections_verified;
        if (run.tls_failures.length || run.tls_connections_verified < 1)
          throw new Error(`TLS verification failed: ${[...new Set(run.tls_failures)].join(', ')}`);
      }
      const { cpu, ...figures } = run;
      Object.assign(step, figures, {
        // CPU per process as a share of one core (100 = one core busy); the machine's busy and
        // stolen time as a share of all cores.
        cpu_percent_of_one_core: Object.fromEntries(
          Object.entries(cpu.cpu_seconds).map(([g, sec]) => [g, round((100 * sec) / cpu.wall_seconds, 1)]),
        ),
        cpu_ms_per_request: Object.fromEntries(
          Object.entries(cpu.cpu_seconds).map(([g, sec]) => [g, round3((1000 * sec) / run.requests_total)]),
        ),
        machine_busy_percent: cpu.machine_busy_percent,
        machine_steal_percent: cpu.machine_steal_percent,
        other_processes_percent: cpu.other_processes_percent,
        cores: os.cpus().length,
      });
      step.held = step.errors === 0 && step.p99_ms < settings.targetP99Ms && step.achieved_rps >= 0.95 * rate;
      log(
        `step ${agents}: ${step.achieved_rps}/${rate} req/s, p50 ${step.p50_ms} ms, p99 ${step.p99_ms} ms (by kind ${JSON.stringify(step.by_kind ?? {})}), ` +
          `CPU ${JSON.stringify(step.cpu_percent_of_one_core)}, busy ${step.machine_busy_percent} %, steal ${step.machine_steal_percent} % -> ${step.held ? 'held' : 'did not hold'}`,
      );
    } catch (error) {
      step.held = false;
      step.failure = error instanceof Error ? error.message : String(error);
      log(`step ${agents}: errors: ${step.failure}`);
    }
    steps.push(step);
    if (!step.held) break;
    held = step;
  }

  const pass = Boolean(held && held.agents >= TARGET_AGENTS);
  const summary = {
    bench: 'agent-fleet',
    at: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
    settings: { ...settings, databaseServerUrl: undefined, natsUrl: undefined, work_every: workEvery },
    target_agents: TARGET_AGENTS,
    target_p99_ms: settings.targetP99Ms,
    seed,
    checks,
    steps,
    largest_fleet_held: held?.agents ?? 0,
    largest_fleet_rps: held?.achieved_rps ?? null,
    largest_fleet_p50_ms: held?.p50_ms ?? null,
    largest_fleet_p99_ms: held?.p99_ms ?? null,
    pass,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `agent-fleet-${stamp}.json`);
  writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  process.stdout.write(
    `BENCH_RESULT ${JSON.stringify({
      largest_fleet_held: summary.largest_fleet_held,
      rps: summary.largest_fleet_rps,
      p50_ms: summary.largest_fleet_p50_ms,
      p99_ms: summary.largest_fleet_p99_ms,
      first_failed_step: steps.find((s) => !s.held)?.agents ?? null,
      target_agents: TARGET_AGENTS,
      pass,
      results_file: file,
    })}\n`,
  );
  log(`results in ${file}; largest fleet held: ${summary.largest_fleet_held} agents`);
  log(`wall ${round(process.uptime(), 1)} s`);
  return summary;
}

await runBench(main, settings.enforceTargets);
