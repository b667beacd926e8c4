// Shared by the libs/pki benches: the built library (run `node tools/build.mjs` first), a small
// CA hierarchy made with it, and CSRs.
import crypto from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const entry = resolve(ROOT, 'dist/libs/pki/src/index.js');
if (!existsSync(entry)) {
  process.stderr.write(`${entry} is missing: run \`node tools/build.mjs\` first\n`);
  process.exit(1);
}
export const pki = createRequire(import.meta.url)(entry);
export { crypto };

export const round = (value, digits = 0) => Math.round(value * 10 ** digits) / 10 ** digits;
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const YEAR = 365 * 86_400_000;

/** Root and issuing CA with keys of `spec`, as the local CA will make them. */
export async function createPki(spec) {
  const provider = new pki.SoftwareKeyProvider();
  const now = Date.now();
  const { signer: rootSigner } = await provider.generate(spec);
  const root = pki.parseCertificate(
    (
      await pki.createSelfSignedCa({
        subject: [
          ['O', 'Certlane Bench'],
          ['CN', 'Bench Root'],
        ],
        signer: rootSigner,
        notBefore: new Date(now - 3600_000),
        notAfter: new Date(now + 10 * YEAR),
      })
    ).der,
  );
  const rootCa = new pki.CertificateAuthority({ certificate: root, signer: rootSigner });
  const { signer: intermediateSigner } = await provider.generate(spec);
  const intermediate = pki.parseCertificate(
    (
      await rootCa.issue(
        pki.intermediateCaTemplate({
          subject: [
            ['O', 'Certlane Bench'],
            ['CN', 'Bench Issuing CA'],
          ],
          publicKey: intermediateSigner.publicKey,
          notBefore: new Date(now - 3600_000),
          notAfter: new Date(now + 5 * YEAR),
          pathLength: 0,
        }),
      )
    ).der,
  );
  const urls = {
    crlDistributionPoints: ['https://pki.example.test/crl/bench'],
    ocspUrls: ['https://pki.example.test/ocsp/bench'],
    caIssuersUrls: ['https://pki.example.test/ca/bench.der'],
  };
  const ca = new pki.CertificateAuthority({ certificate: intermediate, signer: intermediateSigner, ...urls });
  return { root, intermediate, intermediateSigner, ca };
}

/** `count` distinct CSRs (DER), each with its own key, a subject and two DNS SANs. */
export async function makeCsrs(count, spec) {
  const provider = new pki.SoftwareKeyProvider();
  const out = [];
  for (let i = 0; i < count; i++) {
    const { signer } = await provider.generate(spec);
    const { der } = await pki.createCsr({
      subject: [
        ['O', 'Example'],
        ['CN', `host-${i}.example.test`],
      ],
      signer,
      subjectAltNames: [
        { type: 'dns', value: `host-${i}.example.test` },
        { type: 'dns', value: `www.host-${i}.example.test` },
      ],
    });
    out.push(der);
  }
  return out;
}
