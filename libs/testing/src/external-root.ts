import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * An "external" root CA made with the openssl binary, to sign a sub-CA CSR the local CA produced
 * (the sub-CA flow of the intermediate-CA routes). Returns the root and the signed CA certificate.
 */
export function signSubCaWithExternalRoot(csrPem: string): { rootPem: string; certificatePem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'certlane-external-root-'));
  try {
    const run = (...args: string[]) =>
      execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'root.key');
    run(
      'req',
      '-x509',
      '-new',
      '-key',
      'root.key',
      '-subj',
      '/O=External/CN=External Root',
      '-days',
      '3650',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'root.pem',
    );
    writeFileSync(join(dir, 'sub.csr'), csrPem);
    writeFileSync(
      join(dir, 'ext.cnf'),
      'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,digitalSignature,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n',
    );
    run(
      'x509',
      '-req',
      '-in',
      'sub.csr',
      '-CA',
      'root.pem',
      '-CAkey',
      'root.key',
      '-CAcreateserial',
      '-days',
      '1825',
      '-extfile',
      'ext.cnf',
      '-out',
      'sub.pem',
    );
    return {
      rootPem: readFileSync(join(dir, 'root.pem'), 'utf8'),
      certificatePem: readFileSync(join(dir, 'sub.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
