#!/usr/bin/env node
// Bulk bench (spec 4.2, 4.3): POST /api/v1/certificates/bulk-renew through the gateway over HTTPS
// on 10,000 and 100,000 certificates seeded with SQL (criteria mode, one owner each), timing the
// call and reading the issuance process's peak resident set (VmHWM, reset before each call); then
// POST /api/v1/certificates/bulk-revoke on certificates whose versions carry serials really issued
// by the local CA (issued over the bus first). A fresh database and NATS namespace.
// See bench/README.md (## bulk). Run with `npm run bench:bulk`.
//
// Environment switches (all optional):
//   BENCH_BULK_SIZES=10000,100000   certificates per bulk-renew run
//   BENCH_REVOKE_SIZE=10000         real-serial certificates for the bulk-revoke run (0 skips it)
//   BENCH_ISSUE_CONCURRENCY=32      concurrent issue-certificate requests while seeding serials
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres  BENCH_NATS_URL=nats://127.0.0.1:4222
//   BENCH_ENFORCE_TARGETS=1         exit 2 when a target is missed (default: report only)
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { cpuMeter, fetchOnce, log, round, runBench } from '../lib/harness.mjs';
import { benchSystem, busClient, RESULTS_DIR, startService } from '../lib/services.mjs';
import { makeCsrs, pki } from '../pki/common.mjs';

/** Targets: 100,000 certificates renewed within 120 s with issuance under 512 MiB peak RSS. */
const TARGET_SECONDS_100K = 120;
const TARGET_PEAK_RSS_MIB = 512;

const sizes = (process.env.BENCH_BULK_SIZES || '10000,100000').split(',').map((s) => {
  const n = Number(s);
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`BENCH_BULK_SIZES entry ${s} is not a positive integer`);
  return n;
});
const settings = {
  sizes,
  revokeSize: Number(process.env.BENCH_REVOKE_SIZE ?? 10000),
  issueConcurrency: Number(process.env.BENCH_ISSUE_CONCURRENCY ?? 32),
  enforceTargets: /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};

/** Resident set now and its peak since the last reset, in MiB (Linux /proc). */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN);
  return { rss_mib: round(kib('VmRSS') / 1024, 1), peak_rss_mib: round(kib('VmHWM') / 1024, 1) };
}

/** Resets the peak resident set (VmHWM) of a process we started. */
function resetPeak(pid) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

async function seed(db, owner, count) {
  await db.query('INSERT INTO issuance.owners (id, name) VALUES ($1, $1)', [owner]);
  await db.query(
    `INSERT INTO issuance.certificates (id, name, common_name, status, owner_id, issuer_id, renewal_policy_id, agent_id)
     SELECT id, id, id || '.example.com', 'Active', $1, 'iss-local', 'rp-default', 'agent-bench'
     FROM (SELECT $1 || '-' || lpad(n::text, 6, '0') AS id FROM generate_series(1, $2::int) AS n) s`,
    [owner, count],
  );
}

async function bulk(gateway, system, route, body) {
  const t0 = performance.now();
  const response = await fetchOnce(`${gateway.url}/api/v1/certificates/${route}`, {
    method: 'POST',
    ca: system.ca,
    headers: {
      authorization: `Bearer ${system.env.SERVICE_AUTH_SECRET}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
    timeoutMs: 600_000,
  });
  const seconds = (performance.now() - t0) / 1000;
  if (response.status !== 200)
    throw new Error(`${route} answered ${response.status}: ${response.text.slice(0, 500)}`);
  return { seconds: round(seconds, 2), result: JSON.parse(response.text), bytes: response.text.length };
}

/** Issues `count` certificates over the bus (CSRs reused: every issuance gets a fresh serial). */
async function issueSerials(bus, count, concurrency) {
  const csrs = await makeCsrs(64, { algorithm: 'ECDSA', curve: 'P-256' });
  const payloads = csrs.map((der) => bus.encode({ csr_pem: pki.toPem('CERTIFICATE REQUEST', der) }));
  const subject = bus.subject('issuance.v1.issue-certificate');
  const issued = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const payload = payloads[next++ % payloads.length];
        const reply = bus.codec.decode((await bus.nc.request(subject, payload, { timeout: 30_000 })).data);
        if (!reply.ok) throw new Error(`issue-certificate answered ${JSON.stringify(reply.error)}`);
        issued.push({ serial_hex: reply.data.serial_hex, not_after: reply.data.not_after });
      }
    }),
  );
  return issued.slice(0, count);
}

async function main() {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  const system = await benchSystem(settings);
  log('starting issuance and api-gateway');
  const issuance = await startService(system, 'issuance');
  const gateway = await startService(system, 'api-gateway');
  const bus = await busClient(system, settings.natsUrl, 'bench-bulk');
  const { Client } = (await import('pg')).default;
  const db = new Client({ connectionString: system.databaseUrl });
  await db.connect();
  const runs = [];
  try {
    for (const size of settings.sizes) {
      const owner = `bench-renew-${size}`;
      log(`seeding ${size} certificates`);
      const s0 = performance.now();
      await seed(db, owner, size);
      await db.query('ANALYZE issuance.certificates');
      const seedSeconds = round((performance.now() - s0) / 1000, 1);
      resetPeak(issuance.pid);
      const before = memory(issuance.pid);
      const meter = cpuMeter(() => ({ issuance: [issuance.pid], gateway: [gateway.pid] }));
      meter.start();
      log(`bulk-renew on ${size} certificates`);
      const { seconds, result, bytes } = await bulk(gateway, system, 'bulk-renew', { owner_id: owner });
      const cpu = meter.stop();
      const after = memory(issuance.pid);
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM issuance.jobs j JOIN issuance.certificates c ON c.id = j.certificate_id
         WHERE c.owner_id = $1 AND j.status = 'AwaitingCSR'`,
        [owner],
      );
      if (result.total_enqueued !== size || rows[0].n !== size)
        throw new Error(
          `bulk-renew of ${size}: ${result.total_enqueued} enqueued, ${rows[0].n} jobs in the database`,
        );
      const run = {
        operation: 'bulk-renew',
        certificates: size,
        seed_seconds: seedSeconds,
        seconds,
        certificates_per_second: Math.round(size / seconds),
        issuance_rss_before_mib: before.rss_mib,
        issuance_peak_rss_mib: after.peak_rss_mib,
        response_bytes: bytes,
        enqueued_jobs_listed: result.enqueued_jobs.length,
        enqueued_jobs_truncated: result.enqueued_jobs_truncated,
        cpu_seconds: cpu.cpu_seconds,
        machine_steal_percent: cpu.machine_steal_percent,
        other_processes_percent: cpu.other_processes_percent,
      };
      log(
        `bulk-renew ${size}: ${seconds} s (${run.certificates_per_second}/s), issuance peak RSS ${run.issuance_peak_rss_mib} MiB (before ${before.rss_mib} MiB), response ${bytes} bytes`,
      );
      runs.push(run);
    }

    if (settings.revokeSize > 0) {
      const size = settings.revokeSize;
      const owner = `bench-revoke-${size}`;
      log(`issuing ${size} certificates from the local CA for real serials`);
      const i0 = performance.now();
      const issued = await issueSerials(bus, size, settings.issueConcurrency);
      const issueSeconds = round((performance.now() - i0) / 1000, 1);
      await seed(db, owner, size);
      await db.query(
        `INSERT INTO issuance.certificate_versions
           (id, certificate_id, version, serial_number, fingerprint_sha256, key_algorithm, key_size, issued_at,
            not_before, not_after, cert_pem, issuer_id)
         SELECT 'ver-' || c.id, c.id, 1, s.serial_hex, '00', 'ECDSA', 256, now(), now(), s.not_after, '', 'iss-local'
         FROM unnest($2::text[], $3::timestamptz[], $4::int[]) AS s(serial_hex, not_after, n)
         JOIN issuance.certificates c ON c.id = $1 || '-' || lpad(s.n::text, 6, '0')`,
        [owner, issued.map((i) => i.serial_hex), issued.map((i) => i.not_after), issued.map((_, i) => i + 1)],
      );
      await db.query('ANALYZE issuance.certificate_versions');
      resetPeak(issuance.pid);
      log(`bulk-revoke on ${size} certificates with real serials`);
      const { seconds, result } = await bulk(gateway, system, 'bulk-revoke', {
        owner_id: owner,
        reason: 'superseded',
      });
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM issuance.revocations WHERE serial_hex = ANY($1)`,
        [issued.map((i) => i.serial_hex)],
      );
      if (result.total_revoked !== size || rows[0].n !== size)
        throw new Error(
          `bulk-revoke of ${size}: ${result.total_revoked} revoked, ${rows[0].n} revocations stored`,
        );
      const run = {
        operation: 'bulk-revoke',
        certificates: size,
        issue_seconds: issueSeconds,
        seconds,
        certificates_per_second: Math.round(size / seconds),
        issuance_peak_rss_mib: memory(issuance.pid).peak_rss_mib,
      };
      log(
        `bulk-revoke ${size}: ${seconds} s (${run.certificates_per_second}/s), issuance peak RSS ${run.issuance_peak_rss_mib} MiB`,
      );
      runs.push(run);
    }
  } finally {
    await db.end();
  }

  const largest = runs.filter((r) => r.operation === 'bulk-renew').at(-1);
  const summary = {
    bench: 'bulk',
    timestamp: new Date().toISOString(),
    runs: runs.map(({ cpu_seconds, ...rest }) => ({ ...rest, cpu_seconds })),
    target_seconds_100k: TARGET_SECONDS_100K,
    target_peak_rss_mib: TARGET_PEAK_RSS_MIB,
    node_version: process.version,
    cpu_count: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
  };
  summary.pass =
    !!largest &&
    runs.every((r) => (r.issuance_peak_rss_mib ?? 0) <= TARGET_PEAK_RSS_MIB) &&
    (largest.certificates < 100_000 || largest.seconds <= TARGET_SECONDS_100K);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `bulk-${stamp}.json`);
  summary.results_file = file;
  writeFileSync(file, JSON.stringify({ settings, summary }, null, 2));
  console.log(
    [
      'Bulk operations through the gateway (criteria mode, one owner per run):',
      ...runs.map(
        (r) =>
          `  ${r.operation} ${r.certificates}: ${r.seconds} s (${r.certificates_per_second} certificates/s), issuance peak RSS ${r.issuance_peak_rss_mib} MiB`,
      ),
      `  targets: 100,000 renewed within ${TARGET_SECONDS_100K} s, issuance peak RSS <= ${TARGET_PEAK_RSS_MIB} MiB: ${summary.pass ? 'MET' : 'MISS'}`,
      `Results: ${file}`,
      `BENCH_RESULT ${JSON.stringify(summary)}`,
    ].join('\n'),
  );
  return summary;
}

await runBench(main, settings.enforceTargets);
