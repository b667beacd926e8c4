#!/usr/bin/env node
// SCEP bench (issue 21): concurrent PKCSReq enrollments with challenge passwords, RSA-2048
// requesters, against the real protocol-frontends and issuance processes (dist/) on their own
// listener: each request is a pkiMessage (SignedData over an AES-256 EnvelopedData to the RA)
// the server verifies, decrypts with the RA key, checks the challenge and CSR, issues through
// issuance (the local CA), imports into the inventory (source SCEP), audits, counts, and answers
// a CertRep enveloped to the requester and signed by the RA. Baseline measured in the same run:
// the raw crypto of one enrollment (the RA's RSA decrypt and sign, the requester signature and
// CSR checks, the CA's P-256 signature, the envelope to the requester) on one core.
// Run with `npm run bench:scep`. See bench/README.md (## scep).
//
// Environment switches (all optional):
//   BENCH_DURATION_SECONDS=10  BENCH_WARMUP_SECONDS=2  BENCH_CONCURRENCY=32
//   BENCH_REQUESTERS=48        distinct RSA-2048 requester keys (each message has its own transactionID)
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres  BENCH_NATS_URL=nats://127.0.0.1:4222
//   BENCH_ENFORCE_TARGETS=1    exit 2 when the target is missed (default: report only)
//   BENCH_CPU_PROF=1           both services with --cpu-prof (bench/results/profiles-scep-<ts>/)
import { execFileSync } from 'node:child_process';
import {
  constants,
  createCipheriv,
  createHash,
  createSign,
  createVerify,
  generateKeyPairSync,
  privateDecrypt,
  publicEncrypt,
  randomBytes,
  sign,
  X509Certificate,
} from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import {
  cpuMeter,
  log,
  percentile,
  positiveNumberEnv,
  round,
  round3,
  runBench,
  ROOT,
} from '../lib/harness.mjs';
import { benchSystem, busClient, RESULTS_DIR, startService } from '../lib/services.mjs';

const require = createRequire(import.meta.url);
const der = require(join(ROOT, 'dist/libs/protocol-frontends/src/scep/der.js'));
const TARGET_RATE = 300;
const CHALLENGE = 'bench-scep-challenge-password';
const num = positiveNumberEnv;
const settings = {
  durationSeconds: num('BENCH_DURATION_SECONDS', 10),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 2),
  concurrency: Math.round(num('BENCH_CONCURRENCY', 32)),
  requesters: Math.round(num('BENCH_REQUESTERS', 48)),
  enforceTargets: /^(1|true|yes|on)$/i.test(process.env.BENCH_ENFORCE_TARGETS ?? ''),
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
};
const dir = mkdtempSync(join(os.tmpdir(), 'bench-scep-'));
const openssl = (args, input) =>
  execFileSync('openssl', args, { input, stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });

/** An RSA-2048 requester: key, self-signed certificate and a CSR carrying the challenge password. */
function requester(i) {
  const key = join(dir, `r${i}.key`);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(key, privateKey.export({ format: 'pem', type: 'pkcs8' }));
  const certDer = openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    key,
    '-subj',
    `/CN=bench-device-${i}`,
    '-days',
    '2',
    '-outform',
    'DER',
  ]);
  writeFileSync(
    join(dir, `r${i}.cnf`),
    `[req]\ndistinguished_name=dn\nattributes=a\nprompt=no\n[dn]\nCN=bench-device-${i}\n[a]\nchallengePassword=${CHALLENGE}\n`,
  );
  const csr = openssl(['req', '-new', '-key', key, '-config', join(dir, `r${i}.cnf`), '-outform', 'DER']);
  return { key: privateKey, certDer, csr, issuerAndSerial: issuerAndSerial(certDer) };
}

function issuerAndSerial(certDer) {
  const cert = new X509Certificate(certDer);
  // The DER of issuer and serial as encoded: walk the TBSCertificate by hand (v3: [0] version first).
  const read = (buf, at) => {
    let length = buf[at + 1];
    let header = 2;
    if (length & 0x80) {
      const n = length & 0x7f;
      length = 0;
      for (let k = 0; k < n; k++) length = length * 256 + buf[at + 2 + k];
      header = 2 + n;
    }
    return { start: at, end: at + header + length, content: at + header };
  };
  const tbs = read(certDer, read(certDer, 0).content);
  let at = tbs.content;
  if (certDer[at] === 0xa0) at = read(certDer, at).end;
  const serial = read(certDer, at);
  const signatureAlg = read(certDer, serial.end);
  const issuer = read(certDer, signatureAlg.end);
  void cert;
  return der.sequence(certDer.subarray(issuer.start, issuer.end), certDer.subarray(serial.start, serial.end));
}

/** A PKCSReq pkiMessage (RFC 8894 3.2) with a fresh transactionID, enveloped to the RA with AES-256-CBC. */
function pkcsReq(r, ra) {
  const cek = randomBytes(32);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', cek, iv);
  const encrypted = Buffer.concat([cipher.update(r.csr), cipher.final()]);
  const envelope = der.sequence(
    der.oid('1.2.840.113549.1.7.3'),
    der.context(
      0,
      der.sequence(
        der.integer(0),
        der.setOf(
          der.sequence(
            der.integer(0),
            ra.issuerAndSerial,
            der.algorithm('1.2.840.113549.1.1.1'),
            der.octetString(publicEncrypt({ key: ra.publicKey, padding: constants.RSA_PKCS1_PADDING }, cek)),
          ),
        ),
        der.sequence(
          der.oid('1.2.840.113549.1.7.1'),
          der.algorithm('2.16.840.1.101.3.4.1.42', der.octetString(iv)),
          der.tlv(0x80, encrypted),
        ),
      ),
    ),
  );
  const attr = (type, value) => der.sequence(der.oid(type), der.setOf(value));
  const signedAttrs = der.setOf(
    attr('1.2.840.113549.1.9.3', der.oid('1.2.840.113549.1.7.1')),
    attr('1.2.840.113549.1.9.4', der.octetString(createHash('sha256').update(envelope).digest())),
    attr('2.16.840.1.113733.1.9.2', der.printableString('19')),
    attr('2.16.840.1.113733.1.9.7', der.printableString(randomBytes(16).toString('hex'))),
    attr('2.16.840.1.113733.1.9.5', der.octetString(randomBytes(16))),
  );
  const signerInfo = der.sequence(
    der.integer(1),
    r.issuerAndSerial,
    der.algorithm('2.16.840.1.101.3.4.2.1'),
    Buffer.concat([Buffer.from([0xa0]), signedAttrs.subarray(1)]),
    der.algorithm('1.2.840.113549.1.1.1'),
    der.octetString(sign('sha256', signedAttrs, r.key)),
  );
  return der.sequence(
    der.oid('1.2.840.113549.1.7.2'),
    der.context(
      0,
      der.sequence(
        der.integer(1),
        der.setOf(der.algorithm('2.16.840.1.101.3.4.2.1')),
        der.sequence(der.oid('1.2.840.113549.1.7.1'), der.context(0, der.octetString(envelope))),
        der.context(0, r.certDer),
        der.setOf(signerInfo),
      ),
    ),
  );
}

// pkiStatus attribute with PrintableString "0" (SUCCESS), as the server encodes it.
const SUCCESS = Buffer.concat([der.oid('2.16.840.1.113733.1.9.3'), der.setOf(der.printableString('0'))]);

function post(agent, url, body) {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'Content-Type': 'application/x-pki-message', 'Content-Length': body.length },
      },
      (response) => {
        const chunks = [];
        response.on('data', (c) => chunks.push(c));
        response.on('end', () => resolve({ status: response.statusCode, body: Buffer.concat(chunks) }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function load(agent, url, messages, seconds, concurrency) {
  const latencies = [];
  let next = 0;
  let failure;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!failure && performance.now() < until) {
        const message = messages[next++ % messages.length]();
        const t0 = performance.now();
        const answer = await post(agent, url, message);
        latencies.push(performance.now() - t0);
        if (answer.status !== 200 || answer.body.indexOf(SUCCESS) < 0)
          failure = new Error(`PKIOperation answered ${answer.status}, not a SUCCESS CertRep`);
      }
    }),
  );
  if (failure) throw failure;
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    enrollments: latencies.length,
    enrollments_per_second: round(latencies.length / elapsed, 1),
    latency_ms: {
      p50: round3(percentile(latencies, 50)),
      p99: round3(percentile(latencies, 99)),
      max: round3(latencies.at(-1)),
    },
  };
}

/** The crypto of one enrollment, without I/O, on this (one) core: enrollments/s it allows. */
function rawCryptoRate(r, ra, raKey, caKey, seconds = 2) {
  const message = pkcsReq(r, ra);
  const block = publicEncrypt({ key: ra.publicKey, padding: constants.RSA_PKCS1_PADDING }, randomBytes(32));
  let n = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  while (performance.now() < until) {
    privateDecrypt({ key: raKey, padding: constants.RSA_NO_PADDING }, block); // RA: content key
    createVerify('sha256').update(message).verify(r.publicKeyPem, r.signature); // requester's signature
    createVerify('sha256').update(r.csr).verify(r.publicKeyPem, r.signature); // CSR's signature
    sign('sha256', message, caKey); // CA: the certificate (P-256)
    publicEncrypt({ key: r.publicKeyPem, padding: constants.RSA_PKCS1_PADDING }, randomBytes(32)); // envelope
    createSign('sha256').update(message).sign(raKey); // RA: the CertRep
    n++;
  }
  return n / ((performance.now() - started) / 1000);
}

async function main() {
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  const system = await benchSystem(settings);
  log('starting issuance and protocol-frontends');
  const cpuProfDir = /^(1|true|yes|on)$/i.test(process.env.BENCH_CPU_PROF ?? '')
    ? join(RESULTS_DIR, `profiles-scep-${new Date().toISOString().replace(/[:.]/g, '-')}`)
    : undefined;
  const issuance = await startService(system, 'issuance', cpuProfDir ? { cpuProfDir } : {});
  const frontends = await startService(system, 'protocol-frontends', cpuProfDir ? { cpuProfDir } : {});
  if (cpuProfDir) log(`CPU profiles of both services: ${cpuProfDir}/<service>.cpuprofile (at exit)`);
  const bus = await busClient(system, settings.natsUrl, 'bench-scep');
  await bus.request('protocol-frontends.v1.scep-create-profile', {
    path_id: 'bench',
    challenge_password: CHALLENGE,
  });
  const newAgent = () =>
    new https.Agent({
      keepAlive: true,
      maxSockets: settings.concurrency,
      ca: system.ca,
      minVersion: 'TLSv1.3',
    });
  let agent = newAgent();
  const base = `${frontends.url}/scep/bench`;

  // GetCACert: the RA certificate first.
  const caCert = await new Promise((resolve, reject) =>
    https
      .get(`${base}?operation=GetCACert`, { agent }, (response) => {
        const chunks = [];
        response.on('data', (c) => chunks.push(c));
        response.on('end', () => resolve(Buffer.concat(chunks)));
      })
      .on('error', reject),
  );
  const raPem = openssl(['pkcs7', '-inform', 'DER', '-print_certs'], caCert)
    .toString()
    .match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)[0];
  const raDer = Buffer.from(raPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  const ra = { publicKey: new X509Certificate(raDer).publicKey, issuerAndSerial: issuerAndSerial(raDer) };
  log(`RA ${new X509Certificate(raDer).subject}`);

  log(`generating ${settings.requesters} RSA-2048 requesters`);
  const requesters = Array.from({ length: settings.requesters }, (_, i) => requester(i));
  const messages = requesters.map((r) => () => pkcsReq(r, ra));
  agent.destroy(); // its socket idled out while the keys were made
  agent = newAgent();

  // One enrollment first, opened with openssl as a client would.
  const first = await post(agent, `${base}?operation=PKIOperation`, pkcsReq(requesters[0], ra));
  writeFileSync(join(dir, 'first.der'), first.body);
  const inner = openssl([
    'cms',
    '-verify',
    '-noverify',
    '-inform',
    'DER',
    '-in',
    join(dir, 'first.der'),
    '-binary',
  ]);
  writeFileSync(join(dir, 'first-env.der'), inner);
  writeFileSync(join(dir, 'r0.crt'), openssl(['x509', '-inform', 'DER'], requesters[0].certDer));
  const issued = openssl([
    'cms',
    '-decrypt',
    '-inform',
    'DER',
    '-in',
    join(dir, 'first-env.der'),
    '-inkey',
    join(dir, 'r0.key'),
    '-recip',
    join(dir, 'r0.crt'),
    '-binary',
  ]);
  log(
    `first enrollment: ${openssl(['pkcs7', '-inform', 'DER', '-print_certs', '-noout'], issued).toString().trim().split('\n')[0]}`,
  );

  log(`warm-up ${settings.warmupSeconds} s`);
  await load(agent, `${base}?operation=PKIOperation`, messages, settings.warmupSeconds, settings.concurrency);
  log(`measuring ${settings.durationSeconds} s at concurrency ${settings.concurrency}`);
  const meter = cpuMeter(() => ({ 'protocol-frontends': [frontends.pid], issuance: [issuance.pid] }));
  meter.start();
  const run = await load(
    agent,
    `${base}?operation=PKIOperation`,
    messages,
    settings.durationSeconds,
    settings.concurrency,
  );
  const cpu = meter.stop();

  // Baseline, same run: the raw crypto of one enrollment on one core.
  const r = requesters[0];
  r.publicKeyPem = new X509Certificate(r.certDer).publicKey;
  r.signature = sign('sha256', Buffer.from('x'), r.key);
  const { privateKey: raKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { privateKey: caKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const raw = rawCryptoRate(r, { ...ra, publicKey: raKey }, raKey, caKey);
  const summary = {
    bench: 'scep',
    settings,
    ...run,
    cpu,
    baseline_raw_crypto_enrollments_per_second_one_core: round(raw, 1),
    ceiling_all_cores: round(raw * os.cpus().length, 1),
    target: TARGET_RATE,
    pass: run.enrollments_per_second >= TARGET_RATE,
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  agent.destroy();
  return summary;
}

await runBench(main, settings.enforceTargets);
