import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSelfSignedCertificate } from '@certlane/platform';

export interface TlsFixture {
  dir: string;
  certPath: string;
  keyPath: string;
  certPem: string;
  fingerprint: string;
}

export function fingerprintOf(pem: string | Buffer): string {
  return createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');
}

/** A self-signed localhost certificate written to a temporary directory. */
export async function createTlsFixture(commonName = 'localhost'): Promise<TlsFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'certlane-tls-'));
  const generated = await generateSelfSignedCertificate({
    commonName,
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
  });
  const certPath = join(dir, 'server.crt');
  const keyPath = join(dir, 'server.key');
  writeFileSync(certPath, generated.certPem);
  writeFileSync(keyPath, generated.keyPem, { mode: 0o600 });
  return {
    dir,
    certPath,
    keyPath,
    certPem: generated.certPem,
    fingerprint: fingerprintOf(generated.certPem),
  };
}
