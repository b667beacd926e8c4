import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, generateSelfSignedCertificate } from '@certlane/platform';

/** Secrets the quick start generates once and keeps in the data directory. */
export interface GeneratedSecrets {
  auth_secret: string;
  config_encryption_key: string;
  bootstrap_token: string;
  postgres_password: string;
}

export interface DataDir {
  root: string;
  secretsFile: string;
  secrets: GeneratedSecrets;
  certPath: string;
  keyPath: string;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * Creates (first run) or reopens (later runs) the local data directory: generated secrets
 * (mode 0600) and a self-signed TLS certificate for localhost. Nothing is regenerated once it
 * exists, so keys and data survive restarts. A directory that cannot be created or written is a
 * ConfigError naming SERVICE_DATA_DIR.
 */
export async function openDataDir(path: string): Promise<DataDir> {
  const root = resolve(path);
  try {
    return await populateDataDir(root);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!code) throw error;
    throw new ConfigError(
      `the data directory ${root} cannot be written (${(error as Error).message}); ` +
        `set SERVICE_DATA_DIR to a writable directory`,
    );
  }
}

async function populateDataDir(root: string): Promise<DataDir> {
  // The root is traversable (0711) so a dedicated postgres user can reach its own subdirectory;
  // the secrets file and the TLS folder stay private.
  mkdirSync(root, { recursive: true, mode: 0o711 });
  chmodSync(root, 0o711);
  mkdirSync(join(root, 'tls'), { recursive: true, mode: 0o700 });
  const secretsFile = join(root, 'secrets.json');
  const stored: Partial<GeneratedSecrets> = existsSync(secretsFile)
    ? JSON.parse(readFileSync(secretsFile, 'utf8'))
    : {};
  const secrets: GeneratedSecrets = {
    auth_secret: stored.auth_secret ?? hex(32),
    config_encryption_key: stored.config_encryption_key ?? hex(32),
    bootstrap_token: stored.bootstrap_token ?? hex(24),
    postgres_password: stored.postgres_password ?? hex(16),
  };
  writeFileSync(secretsFile, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });

  const certPath = join(root, 'tls', 'server.crt');
  const keyPath = join(root, 'tls', 'server.key');
  if (!existsSync(certPath) || !existsSync(keyPath)) {
    const generated = await generateSelfSignedCertificate({
      commonName: 'localhost',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1', '::1'],
      validDays: 397,
    });
    writeFileSync(keyPath, generated.keyPem, { mode: 0o600 });
    writeFileSync(certPath, generated.certPem, { mode: 0o644 });
  }
  return { root, secretsFile, secrets, certPath, keyPath };
}

/** Fills SERVICE_* variables the user did not set from the data directory; the user's values win. */
export function applyDefaults(env: NodeJS.ProcessEnv, defaults: Record<string, string>): void {
  for (const [name, value] of Object.entries(defaults)) {
    if (env[name] === undefined || env[name] === '') env[name] = value;
  }
}
