// Test material made with the openssl CLI (so the tests do not depend on the code under test):
// a CA and leaves it signs for localhost / 127.0.0.1, as DeploymentMaterial.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificateFingerprint } from '../engine/material';
import type { DeploymentMaterial } from '../target-connector';
import { opensslFingerprint } from './servers';

export interface TestCa {
  dir: string;
  caCertPem: string;
  issue(commonName?: string): DeploymentMaterial;
  cleanup(): void;
}

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });

export function createTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'certlane-connectors-ca-'));
  const caKey = join(dir, 'ca.key');
  const caCert = join(dir, 'ca.crt');
  openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    caKey,
    '-out',
    caCert,
    '-days',
    '30',
    '-subj',
    '/CN=Certlane Connectors Test CA',
  ]);
  let serial = 0;
  return {
    dir,
    caCertPem: readFileSync(caCert, 'utf8'),
    issue(commonName = 'localhost') {
      serial += 1;
      const key = join(dir, `leaf-${serial}.key`);
      const csr = join(dir, `leaf-${serial}.csr`);
      const cert = join(dir, `leaf-${serial}.crt`);
      const ext = join(dir, `leaf-${serial}.ext`);
      writeFileSync(
        ext,
        `subjectAltName=DNS:${commonName},DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n`,
      );
      openssl([
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        key,
        '-out',
        csr,
        '-subj',
        `/CN=${commonName}`,
      ]);
      openssl([
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        caCert,
        '-CAkey',
        caKey,
        '-CAcreateserial',
        '-out',
        cert,
        '-days',
        '7',
        '-extfile',
        ext,
      ]);
      const certificatePem = readFileSync(cert, 'utf8');
      return {
        certificatePem,
        chainPem: readFileSync(caCert, 'utf8'),
        privateKeyPem: readFileSync(key, 'utf8'),
        fingerprintSha256: certificateFingerprint(certificatePem),
      };
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A throw-away self-signed certificate (key 0600) for a server to start with before the code under
 * test replaces it; returns its fingerprint per `openssl x509`.
 */
export function writePlaceholderCertificate(
  keyPath: string,
  certPath: string,
  commonName = 'placeholder',
): string {
  openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${commonName}`,
    '-addext',
    `subjectAltName=DNS:${commonName}`,
    '-keyout',
    keyPath,
    '-out',
    certPath,
  ]);
  chmodSync(keyPath, 0o600);
  return opensslFingerprint(readFileSync(certPath, 'utf8'));
}
