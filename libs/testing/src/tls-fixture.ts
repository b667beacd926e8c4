import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/**
 * A self-signed ECDSA P-256 localhost certificate made by the openssl CLI (so the harness does
 * not depend on the code under test), written to a temporary directory.
 */
export async function createTlsFixture(commonName = 'localhost'): Promise<TlsFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'certlane-tls-'));
  const certPath = join(dir, 'server.crt');
  const keyPath = join(dir, 'server.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '30',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const certPem = readFileSync(certPath, 'utf8');
  return { dir, certPath, keyPath, certPem, fingerprint: fingerprintOf(certPem) };
}
