import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { KeyAlgorithmName } from '@certlane/contracts';
import { keySpecFor, SoftwareKeyProvider, SoftwareSigner, toPem } from '@certlane/pki';

const SAFE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
function safe(name: string, what: string): string {
  if (!SAFE.test(name) || name.includes('..'))
    throw new Error(`${what} ${JSON.stringify(name)} is not a safe file name`);
  return name;
}

/**
 * Private keys on the agent's disk, never anywhere else (ADR 0030): directories 0700, files 0600,
 * written to a temporary name, synced and renamed. A key generated for a CSR is kept under the
 * job (`keys/<certificate>/job-<job>.key.pem`) until the CSR is accepted, then renamed to the
 * version the server issued for it (`keys/<certificate>/<version>.key.pem`), which is what a
 * deployment of that version loads (or, when the 202 was lost, adopts: `adoptJobKey`).
 */
export class KeyStore {
  private readonly provider = new SoftwareKeyProvider();

  constructor(private readonly stateDir: string) {}

  private path(certificateId: string, name: string): string {
    return join(
      this.stateDir,
      'keys',
      safe(certificateId, 'certificate id'),
      `${safe(name, 'key name')}.key.pem`,
    );
  }

  /** Generates a key for a job's CSR and writes it (0600) before anything is sent. */
  async generateForJob(
    certificateId: string,
    jobId: string,
    algorithm: KeyAlgorithmName,
  ): Promise<{ signer: SoftwareSigner; path: string }> {
    const { signer } = await this.provider.generate(keySpecFor(algorithm));
    const path = this.path(certificateId, `job-${jobId}`);
    writePrivateFile(path, toPem('PRIVATE KEY', signer.exportPkcs8()));
    return { signer, path };
  }

  /** The job's key becomes the key of the version the server issued for its CSR. */
  promote(certificateId: string, jobId: string, versionId: string): string {
    const from = this.path(certificateId, `job-${jobId}`);
    const to = this.path(certificateId, versionId);
    renameSync(from, to);
    return to;
  }

  discard(certificateId: string, jobId: string): void {
    const path = this.path(certificateId, `job-${jobId}`);
    if (existsSync(path)) unlinkSync(path);
  }

  keyPath(certificateId: string, versionId: string): string {
    return this.path(certificateId, versionId);
  }

  /** Stores a key the server released for a version (ADR 0033), 0600; the caller checked it. */
  storeFetched(certificateId: string, versionId: string, pem: string): string {
    const path = this.path(certificateId, versionId);
    writePrivateFile(path, pem);
    return path;
  }

  /**
   * After `versionId` was deployed: deletes the certificate's version keys older than it, except the
   * newest of them (what a rollback to the previous version needs). Keys of CSRs still in flight
   * (`job-*`) and newer versions stay. Returns the versions whose keys were deleted.
   */
  pruneBefore(certificateId: string, versionId: string): string[] {
    const dir = dirname(this.path(certificateId, versionId));
    const deployed = this.path(certificateId, versionId);
    if (!existsSync(deployed)) return [];
    const deployedAt = statSync(deployed).mtimeMs;
    const older = readdirSync(dir)
      .filter((name) => name.endsWith('.key.pem') && !name.startsWith('job-'))
      .map((name) => ({ version: name.slice(0, -'.key.pem'.length), path: join(dir, name) }))
      .filter(({ version }) => version !== versionId)
      .map((key) => ({ ...key, at: statSync(key.path).mtimeMs }))
      .filter(({ at }) => at <= deployedAt)
      .sort((a, b) => b.at - a.at);
    // The newest older key stays for a rollback; the rest go.
    return older.slice(1).map(({ version, path }) => {
      unlinkSync(path);
      return version;
    });
  }

  /**
   * A CSR's key left under its job name because the 202 never arrived (the server issued the
   * version, the answer was lost) becomes the key of the version whose certificate carries its
   * public key. Returns the job id of the key adopted, or null when no job key matches.
   */
  adoptJobKey(certificateId: string, versionId: string, leafPem: string): string | null {
    const to = this.path(certificateId, versionId);
    const dir = dirname(to);
    if (!existsSync(dir)) return null;
    for (const name of readdirSync(dir).sort()) {
      if (!name.startsWith('job-') || !name.endsWith('.key.pem')) continue;
      const from = join(dir, name);
      if (!carriesPublicKeyOf(readFileSync(from, 'utf8'), leafPem)) continue;
      renameSync(from, to);
      return name.slice('job-'.length, -'.key.pem'.length);
    }
    return null;
  }

  /** The PEM key of a version, checked against its certificate; null when this agent has none. */
  keyFor(certificateId: string, versionId: string, leafPem: string): string | null {
    const path = this.path(certificateId, versionId);
    if (!existsSync(path)) return null;
    const pem = readFileSync(path, 'utf8');
    if (!new X509Certificate(leafPem).checkPrivateKey(createPrivateKey(pem))) {
      throw new Error(
        `the key stored for ${certificateId} version ${versionId} does not match its certificate`,
      );
    }
    return pem;
  }
}

/** Does the certificate carry the private key's public key (their SubjectPublicKeyInfo, byte for byte)? */
export function carriesPublicKeyOf(privateKeyPem: string, leafPem: string): boolean {
  let keySpki: Buffer;
  try {
    keySpki = createPublicKey(createPrivateKey(privateKeyPem)).export({ type: 'spki', format: 'der' });
  } catch {
    return false; // not a key (a damaged file): it is no version's key
  }
  const leafSpki = new X509Certificate(leafPem).publicKey.export({ type: 'spki', format: 'der' });
  return keySpki.equals(leafSpki);
}

/** Writes `content` with mode 0600 (directories 0700) atomically: temp file, fsync, rename. */
export function writePrivateFile(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.tmp-${process.pid}-${Date.now()}`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(temp, 0o600); // whatever the umask
  renameSync(temp, path);
}
