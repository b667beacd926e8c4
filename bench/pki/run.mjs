#!/usr/bin/env node
// libs/pki in-process benchmarks (issue 4, "Benchmarks"): certificate issuance from a CSR (CSR
// parse + signature verify + build + sign) for a P-256 and an RSA-2048 CA next to the raw
// `crypto.sign` rate measured in the same run, fresh OCSP response signing with a P-256
// responder, and CRL builds of 100k and 1M entries (time and peak RSS, each in a fresh process).
// Everything runs on one core: the benchmark loops are synchronous or await already-settled
// promises on the main thread. See bench/README.md (section "pki").
//
//   node tools/build.mjs && node bench/pki/run.mjs
//
// Environment switches (all optional):
//   BENCH_SECONDS=5          length of each rate measurement (after a 1 s warm-up)
//   BENCH_ROUNDS=3           rounds of every rate measurement; the median is reported
//   BENCH_CRL_SIZES=100000,1000000
//   BENCH_CRL_OPENSSL=1      check each built CRL with `openssl crl -verify` (0 to skip)
//   BENCH_ENFORCE_TARGETS=1  exit 2 when a target is missed (default: report only)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crypto, createPki, makeCsrs, median, pki, round } from './common.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const log = (message) => process.stderr.write(`[bench:pki] ${message}\n`);

const num = (name, fallback) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}=${raw} is not a positive number`);
  return value;
};

const settings = {
  seconds: num('BENCH_SECONDS', 5),
  rounds: Math.round(num('BENCH_ROUNDS', 3)),
  crlSizes: (process.env.BENCH_CRL_SIZES || '100000,1000000').split(',').map(Number),
  crlOpenssl: !/^(0|false|no|off)$/i.test(process.env.BENCH_CRL_OPENSSL ?? '1'),
  enforceTargets: /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''),
};

const TARGETS = {
  issuance_p256_per_s: 5000,
  issuance_rsa2048_per_s: 1500,
  ocsp_sign_p256_per_s: 15000,
  crl_1m_seconds: 5,
  crl_1m_peak_rss_mib: 1024,
};

/** The machine's CPU ticks (all cores) from /proc/stat: busy, idle and stolen by the hypervisor. */
function machineTicks() {
  try {
    const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal: steal ?? 0 };
  } catch {
    return undefined;
  }
}
const CLK_TCK = 100;

/**
 * Runs `op` (sync or async) in a loop for `seconds` after a 1 s warm-up and returns ops/s, the
 * process CPU time per op and CPU/wall (how many cores the loop really used).
 */
async function rate(op, seconds) {
  const until = (ms) => performance.now() + ms;
  let stop = until(1000);
  while (performance.now() < stop) for (let i = 0; i < 16; i++) await op();
  const cpu0 = process.cpuUsage();
  const machine0 = machineTicks();
  const t0 = performance.now();
  stop = t0 + seconds * 1000;
  let n = 0;
  while (performance.now() < stop) {
    for (let i = 0; i < 16; i++) await op();
    n += 16;
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const machine1 = machineTicks();
  // Steal: CPU the hypervisor gave to other guests; other load: busy CPU outside this process.
  let stealPercent;
  let otherPercent;
  if (machine0 && machine1) {
    const busy = (machine1.busy - machine0.busy) / CLK_TCK;
    const steal = (machine1.steal - machine0.steal) / CLK_TCK;
    const capacity = busy + (machine1.idle - machine0.idle) / CLK_TCK + steal;
    if (capacity > 0) {
      stealPercent = round((100 * steal) / capacity, 1);
      otherPercent = round((100 * Math.max(0, busy - cpuSeconds)) / capacity, 1);
    }
  }
  return {
    per_s: n / wall,
    ops: n,
    wall_s: wall,
    cpu_us_per_op: (cpuSeconds / n) * 1e6,
    cpu_per_wall: cpuSeconds / wall,
    steal_percent: stealPercent,
    other_load_percent: otherPercent,
  };
}

async function rounds(label, op, paired) {
  const runs = [];
  const pairedRuns = [];
  const report = (name, r, last) =>
    log(
      `${name} round ${r + 1}: ${Math.round(last.per_s)}/s, ${round(last.cpu_us_per_op, 1)} µs CPU/op, steal ${last.steal_percent} %, other load ${last.other_load_percent} %`,
    );
  for (let r = 0; r < settings.rounds; r++) {
    runs.push(await rate(op, settings.seconds));
    report(label, r, runs.at(-1));
    // A variant to compare with, measured right after each round (same conditions, interleaved).
    if (paired) {
      pairedRuns.push(await rate(paired.op, settings.seconds));
      report(paired.label, r, pairedRuns.at(-1));
    }
  }
  const result = summarize(runs);
  if (paired) result.paired = summarize(pairedRuns);
  return result;
}

function summarize(runs) {
  return {
    per_s: round(median(runs.map((x) => x.per_s))),
    cpu_us_per_op: round(median(runs.map((x) => x.cpu_us_per_op)), 2),
    cpu_per_wall: round(median(runs.map((x) => x.cpu_per_wall)), 2),
    rounds: runs.map((x) => round(x.per_s)),
    steal_percent: runs.map((x) => x.steal_percent),
    other_load_percent: runs.map((x) => x.other_load_percent),
  };
}

async function issuanceBench(label, caSpec) {
  const setup = await createPki(caSpec);
  const csrs = await makeCsrs(256, { algorithm: 'ECDSA', curve: 'P-256' });
  const now = new Date();
  let i = 0;
  let last;
  const issue = async () => {
    // The full in-process path, as the local CA runs it: parse the CSR DER, check its key,
    // import it and verify its signature (parseCsrAsync), build the template and the
    // TBSCertificate, sign with the CA key, assemble.
    const csr = await pki.parseCsrAsync(csrs[i++ & 255]);
    last = await setup.ca.issue(pki.templateFromCsr(csr, { validityDays: 90 }, now));
  };
  // The same with the synchronous parseCsr (the CSR key imported as JWK), interleaved with the
  // rounds above for a fair comparison.
  let k = 0;
  const issueSync = async () => {
    const csr = pki.parseCsr(csrs[k++ & 255]);
    return setup.ca.issue(pki.templateFromCsr(csr, { validityDays: 90 }, now));
  };
  const result = await rounds(`issuance ${label}`, issue, {
    label: `issuance ${label} with sync parseCsr`,
    op: issueSync,
  });
  // The last certificate issued must verify with the CA key (node:crypto, i.e. OpenSSL).
  const x509 = new crypto.X509Certificate(last.der);
  if (!x509.verify(new crypto.X509Certificate(setup.ca.certificate.der).publicKey)) {
    throw new Error(`issuance ${label}: the issued certificate does not verify`);
  }
  // Parts of the path, for the breakdown.
  const parsed = csrs.map((der) => pki.parseCsr(der));
  let j = 0;
  const parseOnly = () => pki.parseCsr(csrs[j++ & 255]);
  const parseNoVerify = () => pki.parseCsr(csrs[j++ & 255], { verifySignature: false });
  const buildOnly = () =>
    setup.ca.buildTbs(pki.templateFromCsr(parsed[j++ & 255], { validityDays: 90 }, now));
  // The same without the CSR signature check (parse + key check + build + sign), to show what
  // verifying the CSR costs: importing its EC key and one ECDSA verification.
  const issueUnverified = async () => {
    const csr = pki.parseCsr(csrs[j++ & 255], { verifySignature: false });
    return setup.ca.issue(pki.templateFromCsr(csr, { validityDays: 90 }, now));
  };
  const breakdown = {
    issuance_with_sync_parse_csr_per_s: result.paired.per_s,
    issuance_with_sync_parse_csr_cpu_us: result.paired.cpu_us_per_op,
    issuance_without_csr_verify_per_s: round(
      (await rate(issueUnverified, Math.min(3, settings.seconds))).per_s,
    ),
    csr_parse_and_verify_per_s: round((await rate(parseOnly, Math.min(2, settings.seconds))).per_s),
    csr_parse_only_per_s: round((await rate(parseNoVerify, Math.min(2, settings.seconds))).per_s),
    tbs_build_per_s: round((await rate(buildOnly, Math.min(2, settings.seconds))).per_s),
  };
  return { ...result, breakdown };
}

async function rawSign() {
  const data = crypto.randomBytes(700); // about the size of a leaf TBSCertificate
  const p256 = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  return {
    p256: await rounds('raw crypto.sign P-256', () => crypto.sign('sha256', data, p256)),
    rsa2048: await rounds('raw crypto.sign RSA-2048', () => crypto.sign('sha256', data, rsa)),
  };
}

async function ocspBench() {
  const setup = await createPki({ algorithm: 'ECDSA', curve: 'P-256' });
  const responder = new pki.OcspResponder({ issuer: setup.intermediate, signer: setup.intermediateSigner });
  const serials = Array.from({ length: 1024 }, () => pki.randomSerial());
  const certIds = serials.map((s) => responder.certId(s));
  const revokedAt = new Date(Date.now() - 3600_000);
  let i = 0;
  // A fresh response per call: new producedAt/thisUpdate, a status, a signature.
  const fresh = () => {
    const k = i++ & 1023;
    return responder.respond([
      {
        certId: certIds[k],
        status: k % 10 === 0 ? { status: 'revoked', revokedAt, reason: 'keyCompromise' } : { status: 'good' },
      },
    ]);
  };
  const signResult = await rounds('OCSP fresh response P-256', fresh);
  // The RFC 6960 POST path: parse a request with a nonce, answer it, echo the nonce.
  const requests = certIds.map((id) => pki.createOcspRequest([id], { nonce: crypto.randomBytes(16) }));
  const lookup = () => ({ status: 'good' });
  const post = () => responder.respondTo(pki.parseOcspRequest(requests[i++ & 1023]), lookup);
  const postResult = await rounds('OCSP parse request + fresh response P-256', post);
  return { fresh_response: signResult, parse_request_and_respond: postResult };
}

function crlBench(size, source) {
  const child = spawnSync(process.execPath, [join(ROOT, 'bench/pki/crl-child.mjs'), String(size), source], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, BENCH_CRL_OPENSSL: settings.crlOpenssl ? '1' : '0' },
  });
  if (child.status !== 0) throw new Error(`CRL child (${size}, ${source}) failed:\n${child.stderr}`);
  const line = child.stdout.split('\n').find((l) => l.startsWith('CRL_RESULT '));
  const result = JSON.parse(line.slice('CRL_RESULT '.length));
  log(`CRL ${size} entries (${source}): ${result.build_seconds} s, peak RSS ${result.peak_rss_mib} MiB`);
  return result;
}

async function main() {
  log(
    `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model}), ${settings.rounds} rounds of ${settings.seconds} s`,
  );
  const started = new Date();
  const loadAtStart = os.loadavg();
  const raw = await rawSign();
  const issuanceP256 = await issuanceBench('P-256 CA', { algorithm: 'ECDSA', curve: 'P-256' });
  const issuanceRsa = await issuanceBench('RSA-2048 CA', { algorithm: 'RSA', size: 2048 });
  const ocsp = await ocspBench();
  const crl = [];
  for (const size of settings.crlSizes) {
    crl.push(crlBench(size, 'generator'));
    crl.push(crlBench(size, 'array'));
  }
  const crl1m = crl.filter((c) => c.entries === 1_000_000);
  const summary = {
    raw_sign_p256_per_s: raw.p256.per_s,
    raw_sign_rsa2048_per_s: raw.rsa2048.per_s,
    issuance_p256_per_s: issuanceP256.per_s,
    issuance_rsa2048_per_s: issuanceRsa.per_s,
    issuance_p256_vs_raw_sign: round(issuanceP256.per_s / raw.p256.per_s, 3),
    issuance_rsa2048_vs_raw_sign: round(issuanceRsa.per_s / raw.rsa2048.per_s, 3),
    issuance_p256_with_sync_parse_csr_per_s: issuanceP256.breakdown.issuance_with_sync_parse_csr_per_s,
    issuance_p256_without_csr_verify_per_s: issuanceP256.breakdown.issuance_without_csr_verify_per_s,
    issuance_p256_cpu_us_per_certificate: issuanceP256.cpu_us_per_op,
    issuance_p256_with_sync_parse_csr_cpu_us_per_certificate:
      issuanceP256.breakdown.issuance_with_sync_parse_csr_cpu_us,
    raw_sign_p256_cpu_us_per_signature: raw.p256.cpu_us_per_op,
    issuance_rsa2048_without_csr_verify_per_s: issuanceRsa.breakdown.issuance_without_csr_verify_per_s,
    ocsp_sign_p256_per_s: ocsp.fresh_response.per_s,
    ocsp_post_p256_per_s: ocsp.parse_request_and_respond.per_s,
    crl: crl.map((c) => ({
      entries: c.entries,
      source: c.source,
      seconds: c.build_seconds,
      peak_rss_mib: c.peak_rss_mib,
      der_mib: c.der_mib,
    })),
    targets: TARGETS,
  };
  summary.pass = {
    issuance_p256: summary.issuance_p256_per_s >= TARGETS.issuance_p256_per_s,
    issuance_rsa2048: summary.issuance_rsa2048_per_s >= TARGETS.issuance_rsa2048_per_s,
    ocsp_sign_p256: summary.ocsp_sign_p256_per_s >= TARGETS.ocsp_sign_p256_per_s,
    crl_1m:
      crl1m.length > 0 &&
      crl1m.every(
        (c) => c.build_seconds < TARGETS.crl_1m_seconds && c.peak_rss_mib < TARGETS.crl_1m_peak_rss_mib,
      ),
  };
  const details = {
    settings,
    node_version: process.version,
    cpu_count: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
    load_average_at_start: loadAtStart,
    load_average_at_end: null,
    started_at: started.toISOString(),
    raw_sign: raw,
    issuance: { p256_ca: issuanceP256, rsa2048_ca: issuanceRsa, csr_key: 'ECDSA P-256' },
    ocsp,
    crl,
  };
  details.load_average_at_end = os.loadavg();
  const measured = [raw.p256, raw.rsa2048, issuanceP256, issuanceRsa, ocsp.fresh_response];
  summary.max_steal_percent = Math.max(
    ...measured.flatMap((m) => m.steal_percent).filter((x) => x !== undefined),
  );
  summary.max_other_load_percent = Math.max(
    ...measured.flatMap((m) => m.other_load_percent).filter((x) => x !== undefined),
  );
  summary.load_average = {
    start: details.load_average_at_start.map((x) => round(x, 2)),
    end: details.load_average_at_end.map((x) => round(x, 2)),
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(
    ROOT,
    'bench/results',
    `pki-${started.toISOString().replace(/[:.]/g, '-').slice(0, 19)}.json`,
  );
  writeFileSync(file, JSON.stringify({ summary, details }, null, 2));

  const rows = [
    ['raw crypto.sign P-256', raw.p256.per_s, ''],
    ['raw crypto.sign RSA-2048', raw.rsa2048.per_s, ''],
    ['issuance, P-256 CA (CSR P-256)', issuanceP256.per_s, `target ${TARGETS.issuance_p256_per_s}`],
    ['issuance, RSA-2048 CA (CSR P-256)', issuanceRsa.per_s, `target ${TARGETS.issuance_rsa2048_per_s}`],
    [
      '  same, P-256 CA, sync parseCsr (JWK import)',
      issuanceP256.breakdown.issuance_with_sync_parse_csr_per_s,
      'context',
    ],
    [
      '  same, P-256 CA, CSR not verified',
      issuanceP256.breakdown.issuance_without_csr_verify_per_s,
      'context',
    ],
    [
      '  same, RSA-2048 CA, CSR not verified',
      issuanceRsa.breakdown.issuance_without_csr_verify_per_s,
      'context',
    ],
    ['OCSP fresh response, P-256', ocsp.fresh_response.per_s, `target ${TARGETS.ocsp_sign_p256_per_s}`],
    ['OCSP parse request + respond, P-256', ocsp.parse_request_and_respond.per_s, ''],
  ];
  const out = ['', 'libs/pki in-process benchmarks (median per second)'];
  for (const [name, value, note] of rows)
    out.push(`  ${name.padEnd(40)} ${String(Math.round(value)).padStart(8)}  ${note}`);
  for (const c of crl) {
    out.push(
      `  CRL ${String(c.entries).padStart(7)} entries (${c.source.padEnd(9)}) ${String(c.build_seconds).padStart(6)} s  peak RSS ${c.peak_rss_mib} MiB  DER ${c.der_mib} MiB`,
    );
  }
  out.push(
    `  CPU per P-256 certificate ${issuanceP256.cpu_us_per_op} µs (raw P-256 signature ${raw.p256.cpu_us_per_op} µs); steal up to ${summary.max_steal_percent} %, other load up to ${summary.max_other_load_percent} % of the machine`,
    `  pass: ${JSON.stringify(summary.pass)}`,
    `  results: ${file}`,
    `BENCH_RESULT ${JSON.stringify(summary)}`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
  if (settings.enforceTargets && Object.values(summary.pass).some((v) => !v)) process.exitCode = 2;
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
