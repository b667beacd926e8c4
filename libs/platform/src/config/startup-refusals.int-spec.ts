import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTlsFixture, ProcessRun, runToExit, TlsFixture, validServiceEnv } from '@certlane/testing';
import { CONFIG_ERROR_EXIT_CODE } from './config-error';

/**
 * Every refused configuration stops the real, built service binary before it touches the network:
 * exit code 78 (EX_CONFIG), exactly one line on stderr, nothing on stdout (spec 5.1, 1).
 */
const PREFIX = 'certlane-issuance: configuration error: ';
// Each run is about a second of CPU (module loading): more parallel runs than cores only add noise.
const CONCURRENCY = Math.max(2, Math.min(4, availableParallelism()));
const RUN_TIMEOUT_MS = 30_000;

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
  const garbagePath = join(dir, 'garbage.pem');
  let tls: TlsFixture;

  /** Valid apart from the variables under test; TLS files exist so only the refusal can stop it. */
  const valid = (overrides: Record<string, string | undefined>) =>
    validServiceEnv({
      SERVICE_TLS_CERT_PATH: tls.certPath,
      SERVICE_TLS_KEY_PATH: tls.keyPath,
      // Unreachable on purpose: a refusal must come before any connection attempt.
      SERVICE_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      SERVICE_NATS_URL: 'nats://127.0.0.1:1',
      ...overrides,
    });

  /** [name, the variables that differ from a valid environment, what the one stderr line mentions] */
  const cases: [string, Record<string, string | undefined>, string][] = [
    ['SERVICE_AUTH_TYPE=jwt', { SERVICE_AUTH_TYPE: 'jwt' }, 'SERVICE_AUTH_TYPE=jwt'],
    ['SERVICE_AUTH_TYPE=saml', { SERVICE_AUTH_TYPE: 'saml' }, 'SERVICE_AUTH_TYPE'],
    [
      'SERVICE_AUTH_TYPE=none without SERVICE_DEMO_MODE_ACK',
      { SERVICE_AUTH_TYPE: 'none' },
      'SERVICE_DEMO_MODE_ACK',
    ],
    ['a missing SERVICE_TLS_CERT_PATH', { SERVICE_TLS_CERT_PATH: undefined }, 'SERVICE_TLS_CERT_PATH'],
    ['a missing SERVICE_TLS_KEY_PATH', { SERVICE_TLS_KEY_PATH: undefined }, 'SERVICE_TLS_KEY_PATH'],
    [
      'a placeholder SERVICE_AUTH_SECRET',
      { SERVICE_AUTH_SECRET: 'change-me-please-now' },
      'SERVICE_AUTH_SECRET',
    ],
    [
      'a placeholder SERVICE_CONFIG_ENCRYPTION_KEY',
      { SERVICE_CONFIG_ENCRYPTION_KEY: 'change-me-change-me-change-me-change-me' },
      'SERVICE_CONFIG_ENCRYPTION_KEY',
    ],
    [
      'a short SERVICE_CONFIG_ENCRYPTION_KEY even with SERVICE_DEMO_MODE_ACK',
      { SERVICE_CONFIG_ENCRYPTION_KEY: 'tooShort9e8d7c6b5a4f', SERVICE_DEMO_MODE_ACK: 'true' },
      'SERVICE_CONFIG_ENCRYPTION_KEY',
    ],
    ['SERVICE_CORS_ORIGINS=*', { SERVICE_CORS_ORIGINS: '*' }, 'SERVICE_CORS_ORIGINS'],
    ['SERVICE_SESSION_SAMESITE=None', { SERVICE_SESSION_SAMESITE: 'None' }, 'SERVICE_SESSION_SAMESITE'],
    [
      'a SERVICE_TRUSTED_PROXIES host name',
      { SERVICE_TRUSTED_PROXIES: 'proxy.local' },
      'SERVICE_TRUSTED_PROXIES',
    ],
    [
      'a TLS certificate file that does not exist',
      { SERVICE_TLS_CERT_PATH: join(dir, 'missing.crt') },
      'SERVICE_TLS_CERT_PATH',
    ],
    [
      'a TLS key file that does not exist',
      { SERVICE_TLS_KEY_PATH: join(dir, 'missing.key') },
      'SERVICE_TLS_KEY_PATH',
    ],
    [
      'a TLS certificate file holding garbage',
      { SERVICE_TLS_CERT_PATH: garbagePath },
      'TLS certificate and key',
    ],
  ];
  const runs = new Map<string, ProcessRun>();

  beforeAll(async () => {
    tls = await createTlsFixture();
    writeFileSync(garbagePath, '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n');
    const results = await mapLimited(cases, CONCURRENCY, ([, overrides]) =>
      runToExit('issuance', valid(overrides), { timeoutMs: RUN_TIMEOUT_MS }),
    );
    cases.forEach(([name], i) => runs.set(name, results[i]));
  }, 150_000);

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    if (tls) rmSync(tls.dir, { recursive: true, force: true });
  });

  it.each(cases.map(([name, , mentions]) => [name, mentions]))(
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
