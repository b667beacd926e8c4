// Test support for libs/pki (not exported from the library): runs the real `openssl` binary in a
// temporary directory, and builds a small PKI (root, intermediate) with the library itself.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface OpenSslResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr together, for assertions on what openssl printed. */
  output: string;
}

export class OpenSslWorkspace {
  readonly dir = mkdtempSync(join(tmpdir(), 'certlane-pki-'));

  path(name: string): string {
    return join(this.dir, name);
  }

  write(name: string, data: string | Uint8Array): string {
    const file = this.path(name);
    writeFileSync(file, data);
    return file;
  }

  read(name: string): Buffer {
    return readFileSync(this.path(name));
  }

  readText(name: string): string {
    return readFileSync(this.path(name), 'utf8');
  }

  /** Runs openssl with `args` in the workspace directory; never throws on a non-zero exit. */
  run(args: string[], input?: string | Buffer): OpenSslResult {
    const result = spawnSync('openssl', args, {
      cwd: this.dir,
      input,
      encoding: 'buffer',
      timeout: 60_000,
      maxBuffer: 512 * 1024 * 1024,
    });
    if (result.error) throw result.error;
    const stdout = result.stdout.toString('utf8');
    const stderr = result.stderr.toString('utf8');
    return { status: result.status, stdout, stderr, output: `${stdout}\n${stderr}` };
  }

  /** Runs openssl and fails with its output when it exits non-zero. */
  ok(args: string[], input?: string | Buffer): OpenSslResult {
    const result = this.run(args, input);
    if (result.status !== 0)
      throw new Error(`openssl ${args.join(' ')} exited ${result.status}:\n${result.output}`);
    return result;
  }

  /** A key and CSR made by `openssl req`; `keyArgs` e.g. ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']. */
  csr(
    name: string,
    keyArgs: string[],
    subject: string,
    extra: string[] = [],
  ): { csrPem: string; keyPem: string } {
    this.ok([
      'req',
      '-new',
      ...keyArgs,
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-subj',
      subject,
      ...extra,
      '-out',
      `${name}.csr`,
    ]);
    return { csrPem: this.readText(`${name}.csr`), keyPem: this.readText(`${name}.key`) };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export const KEY_ARGS = {
  'P-256': ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
  'P-384': ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'],
  'P-521': ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-521'],
  secp256k1: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:secp256k1'],
  'RSA-1024': ['-newkey', 'rsa:1024'],
  'RSA-2048': ['-newkey', 'rsa:2048'],
  'RSA-3072': ['-newkey', 'rsa:3072'],
  'RSA-4096': ['-newkey', 'rsa:4096'],
  Ed25519: ['-newkey', 'ed25519'],
  Ed448: ['-newkey', 'ed448'],
} as const;
