import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateSelfSignedCertificate } from '../tls/self-signed';
import { CONFIG_ERROR_EXIT_CODE } from './config-error';

/**
 * Every refused configuration stops the real, built service binary before it touches the network:
 * exit code 78 (EX_CONFIG), exactly one line on stderr, nothing on stdout (spec 5.1, 1).
 *
 * The helpers are local on purpose: libs/testing depends on platform, so importing
 * @certlane/testing from a platform test is a circular dependency the lint rule refuses.
 */
const WORKSPACE = resolve(__dirname, '../../../..');
const ENTRY = join(WORKSPACE, 'dist', 'apps', 'issuance', 'src', 'main.js');
const PREFIX = 'certlane-issuance: configuration error: ';
// Each run is about a second of CPU (module loading): more parallel runs than cores only add noise.
const CONCURRENCY = Math.max(2, Math.min(4, availableParallelism()));
const RUN_TIMEOUT_MS = 30_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runIssuance(env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [ENTRY], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.once('error', reject);
    // 'close' (not 'exit') so both pipes are fully read.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code, signal, stdout, stderr });
    });
  });
}

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

describe('service startup refusals (built issuance binary)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'certlane-refusals-'));
  const certPath = join(dir, 'server.crt');
  const keyPath = join(dir, 'server.key');
  const garbagePath = join(dir, 'garbage.pem');

  /** Valid apart from the variable under test; TLS files exist so only the refusal can stop it. */
  const valid = (overrides: Record<string, string | undefined>) => ({
    SERVICE_TLS_CERT_PATH: certPath,
    SERVICE_TLS_KEY_PATH: keyPath,
    SERVICE_AUTH_SECRET: 'f3b1c9e07a6d4c21b8e5a0d9c7f2e4b6a1d0c3e5',
    SERVICE_CONFIG_ENCRYPTION_KEY: '9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d',
    // Unreachable on purpose: a refusal must come before any connection attempt.
    SERVICE_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
    SERVICE_NATS_URL: 'nats://127.0.0.1:1',
    ...overrides,
  });

  const cases: { name: string; env: Record<string, string | undefined>; mentions: string }[] = [
    {
      name: 'SERVICE_AUTH_TYPE=jwt',
      env: valid({ SERVICE_AUTH_TYPE: 'jwt' }),
      mentions: 'SERVICE_AUTH_TYPE=jwt',
    },
    {
      name: 'SERVICE_AUTH_TYPE=saml',
      env: valid({ SERVICE_AUTH_TYPE: 'saml' }),
      mentions: 'SERVICE_AUTH_TYPE',
    },
    {
      name: 'SERVICE_AUTH_TYPE=none without SERVICE_DEMO_MODE_ACK',
      env: valid({ SERVICE_AUTH_TYPE: 'none' }),
      mentions: 'SERVICE_DEMO_MODE_ACK',
    },
    {
      name: 'a missing SERVICE_TLS_CERT_PATH',
      env: valid({ SERVICE_TLS_CERT_PATH: undefined }),
      mentions: 'SERVICE_TLS_CERT_PATH',
    },
    {
      name: 'a missing SERVICE_TLS_KEY_PATH',
      env: valid({ SERVICE_TLS_KEY_PATH: undefined }),
      mentions: 'SERVICE_TLS_KEY_PATH',
    },
    {
      name: 'a placeholder SERVICE_AUTH_SECRET',
      env: valid({ SERVICE_AUTH_SECRET: 'change-me-please-now' }),
      mentions: 'SERVICE_AUTH_SECRET',
    },
    {
      name: 'a placeholder SERVICE_CONFIG_ENCRYPTION_KEY',
      env: valid({ SERVICE_CONFIG_ENCRYPTION_KEY: 'change-me-change-me-change-me-change-me' }),
      mentions: 'SERVICE_CONFIG_ENCRYPTION_KEY',
    },
    {
      name: 'a short SERVICE_CONFIG_ENCRYPTION_KEY even with SERVICE_DEMO_MODE_ACK',
      env: valid({ SERVICE_CONFIG_ENCRYPTION_KEY: 'tooShort9e8d7c6b5a4f', SERVICE_DEMO_MODE_ACK: 'true' }),
      mentions: 'SERVICE_CONFIG_ENCRYPTION_KEY',
    },
    {
      name: 'SERVICE_CORS_ORIGINS=*',
      env: valid({ SERVICE_CORS_ORIGINS: '*' }),
      mentions: 'SERVICE_CORS_ORIGINS',
    },
    {
      name: 'a TLS certificate file that does not exist',
      env: valid({ SERVICE_TLS_CERT_PATH: join(dir, 'missing.crt') }),
      mentions: 'SERVICE_TLS_CERT_PATH',
    },
    {
      name: 'a TLS key file that does not exist',
      env: valid({ SERVICE_TLS_KEY_PATH: join(dir, 'missing.key') }),
      mentions: 'SERVICE_TLS_KEY_PATH',
    },
    {
      name: 'a TLS certificate file holding garbage',
      env: valid({ SERVICE_TLS_CERT_PATH: garbagePath }),
      mentions: 'TLS certificate and key',
    },
  ];
  const runs = new Map<string, Run>();

  beforeAll(async () => {
    if (!existsSync(ENTRY))
      throw new Error(`${ENTRY} is missing: run \`npm run build\` first (npm test does)`);
    const generated = await generateSelfSignedCertificate({
      commonName: 'localhost',
      dnsNames: ['localhost'],
    });
    writeFileSync(certPath, generated.certPem);
    writeFileSync(keyPath, generated.keyPem, { mode: 0o600 });
    writeFileSync(garbagePath, '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n');
    const results = await mapLimited(cases, CONCURRENCY, (c) => runIssuance(c.env));
    cases.forEach((c, i) => runs.set(c.name, results[i]));
  }, 150_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(cases.map((c) => [c.name, c.mentions]))(
    'refuses %s with exit code 78 and one stderr line naming it',
    (name, mentions) => {
      const run = runs.get(name)!;
      // stderr rides along so a failure shows what the process printed instead.
      expect({ code: run.code, signal: run.signal, stderr: run.stderr.slice(0, 2000) }).toEqual({
        code: CONFIG_ERROR_EXIT_CODE,
        signal: null,
        stderr: expect.any(String),
      });
      expect(run.stdout).toBe('');
      expect(run.stderr.endsWith('\n')).toBe(true);
      const lines = run.stderr.slice(0, -1).split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0].startsWith(PREFIX)).toBe(true);
      expect(lines[0].length).toBeGreaterThan(PREFIX.length);
      expect(lines[0]).toContain(mentions);
    },
  );

  it('never echoes a refused secret', () => {
    expect(runs.get('a placeholder SERVICE_AUTH_SECRET')!.stderr).not.toContain('change-me-please-now');
    expect(runs.get('a placeholder SERVICE_CONFIG_ENCRYPTION_KEY')!.stderr).not.toContain(
      'change-me-change-me',
    );
    expect(
      runs.get('a short SERVICE_CONFIG_ENCRYPTION_KEY even with SERVICE_DEMO_MODE_ACK')!.stderr,
    ).not.toContain('tooShort');
  });
});
