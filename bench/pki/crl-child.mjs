// One CRL build in a fresh process, so its peak RSS is its own: `node crl-child.mjs <entries> <generator|array>`.
// Prints `CRL_RESULT {json}`. Used by run.mjs; see bench/README.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPki, pki, round } from './common.mjs';

const size = Number(process.argv[2]);
const source = process.argv[3] ?? 'generator';
const REASONS = [
  'unspecified',
  'keyCompromise',
  'superseded',
  'cessationOfOperation',
  'affiliationChanged',
  undefined,
];
const base = Date.UTC(2026, 0, 1);
// Serials shaped like Certlane's (17 octets, first hex digit 4-7), distinct per entry.
const serialPrefix = '5a1b2c3d4e5f60718293';
const serialOf = (i) => serialPrefix + i.toString(16).padStart(14, '0');
const entryOf = (i) => ({
  serialNumber: serialOf(i),
  revokedAt: new Date(base + i * 1000),
  reason: REASONS[i % REASONS.length],
});

function* generate() {
  for (let i = 0; i < size; i++) yield entryOf(i);
}

const mib = (bytes) => round(bytes / 1024 / 1024, 1);
const { root, intermediate, intermediateSigner } = await createPki({ algorithm: 'ECDSA', curve: 'P-256' });
const issuer = new pki.CrlIssuer({ certificate: intermediate, signer: intermediateSigner });
const entries = source === 'array' ? Array.from({ length: size }, (_, i) => entryOf(i)) : generate();
const rssBefore = process.memoryUsage().rss;

const t0 = performance.now();
const der = await issuer.build({ crlNumber: 1, thisUpdate: new Date(), entries });
const seconds = (performance.now() - t0) / 1000;
const peakRssKiB = process.resourceUsage().maxRSS;

let opensslVerified;
if (process.env.BENCH_CRL_OPENSSL !== '0') {
  const dir = mkdtempSync(join(tmpdir(), 'certlane-crl-bench-'));
  try {
    writeFileSync(join(dir, 'crl.der'), der);
    writeFileSync(join(dir, 'ca.pem'), pki.certificatePem(intermediate) + pki.certificatePem(root));
    const check = spawnSync(
      'openssl',
      ['crl', '-inform', 'DER', '-in', 'crl.der', '-noout', '-CAfile', 'ca.pem'],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    opensslVerified = check.status === 0 && /verify OK/.test(`${check.stdout}${check.stderr}`);
    if (!opensslVerified) throw new Error(`openssl did not verify the CRL: ${check.stdout}${check.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.stdout.write(
  `CRL_RESULT ${JSON.stringify({
    entries: size,
    source,
    build_seconds: round(seconds, 3),
    entries_per_s: round(size / seconds),
    der_mib: mib(der.length),
    rss_before_build_mib: mib(rssBefore),
    peak_rss_mib: round(peakRssKiB / 1024, 1),
    openssl_verified: opensslVerified ?? null,
  })}\n`,
);
