import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SERVICE_NAMES } from '@certlane/contracts';
import { createTestDatabase, TestDatabase, testNatsUrl, uniqueNamespace } from '@certlane/testing';
import { curl, run } from './cli-tools';
import { freeBasePort } from './ports';

const WORKSPACE = resolve(__dirname, '../../..');

/**
 * The smoke a user would run: `npm run start:services` (eight processes over real NATS and
 * Postgres), then the renewal-policy slice through HTTPS with curl and openssl.
 */
describe('Certlane as separate processes', () => {
  let database: TestDatabase;
  let launcher: ChildProcess;
  let output = '';
  let base: number;
  let cacert: string;
  let key: string;
  const gateway = () => `https://localhost:${base}`;

  /** Launches start:services on a free port range and waits until all eight are ready. */
  async function launch(): Promise<'ready' | 'port-taken'> {
    output = '';
    base = await freeBasePort(SERVICE_NAMES.length);
    const dataDir = mkdtempSync(join(tmpdir(), 'certlane-e2e-'));
    launcher = spawn(process.execPath, [join(WORKSPACE, 'dist/apps/quickstart/src/start-services.js')], {
      env: {
        PATH: process.env.PATH,
        SERVICE_DATA_DIR: dataDir,
        SERVICE_DATABASE_URL: database.url,
        SERVICE_NATS_URL: testNatsUrl(),
        SERVICE_NATS_NAMESPACE: uniqueNamespace('e2e'),
        SERVICE_PORT: String(base),
        SERVICE_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    launcher.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    cacert = join(dataDir, 'tls', 'server.crt');

    const deadline = Date.now() + 45_000;
    const pending = new Set(SERVICE_NAMES.map((_, i) => base + i));
    while (pending.size > 0) {
      if (launcher.exitCode !== null) {
        // Another process took one of the ports between the check and the listen: try another range.
        if (output.includes('EADDRINUSE')) return 'port-taken';
        throw new Error(`start:services exited early:\n${output}`);
      }
      if (Date.now() > deadline) throw new Error(`services not ready on ports ${[...pending]}:\n${output}`);
      for (const port of pending) {
        const ready = await curl(`https://localhost:${port}/ready`, { cacert }).catch(() => undefined);
        if (ready?.status === 200) pending.delete(port);
      }
      if (pending.size) await new Promise((r) => setTimeout(r, 200));
    }
    key = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).auth_secret;
    return 'ready';
  }

  beforeAll(async () => {
    database = await createTestDatabase('e2e');
    for (let attempt = 1; (await launch()) === 'port-taken'; attempt++) {
      if (attempt === 3) throw new Error(`start:services found a port taken three times:\n${output}`);
    }
  }, 150_000);

  afterAll(async () => {
    if (launcher && launcher.exitCode === null) {
      const exited = new Promise((r) => launcher.once('exit', r));
      launcher.kill('SIGTERM');
      await exited;
    }
    await database?.drop();
  });

  it('runs eight services, each ready with its database and NATS and exposing Prometheus metrics', async () => {
    for (let i = 0; i < SERVICE_NAMES.length; i++) {
      const ready = (await curl(`https://localhost:${base + i}/ready`, { cacert })).json() as {
        status: string;
        checks: Record<string, string>;
      };
      expect(ready.status).toBe('ready');
      expect(ready.checks.bus).toBe('up');
      expect(Object.keys(ready.checks).some((c) => c.startsWith('database:'))).toBe(true);
      const metrics = await curl(`https://localhost:${base + i}/metrics`, { cacert });
      expect(metrics.body).toContain('# TYPE certlane_http_requests_total counter');
    }
  });

  it('refuses TLS 1.2 and completes a verified TLS 1.3 handshake (openssl s_client)', async () => {
    const tls12 = await run('openssl', [
      's_client',
      '-connect',
      `127.0.0.1:${base}`,
      '-tls1_2',
      '-CAfile',
      cacert,
      '-servername',
      'localhost',
    ]);
    expect(tls12.code).not.toBe(0);
    const tls13 = await run('openssl', [
      's_client',
      '-connect',
      `127.0.0.1:${base}`,
      '-tls1_3',
      '-CAfile',
      cacert,
      '-servername',
      'localhost',
      '-verify_return_error',
    ]);
    expect(tls13.code).toBe(0);
    expect(tls13.stdout).toMatch(/TLSv1\.3/);
    expect(tls13.stdout).toContain('Verify return code: 0 (ok)');
  });

  it('answers the unauthenticated identity routes', async () => {
    expect((await curl(`${gateway()}/health`, { cacert })).json()).toEqual({ status: 'ok' });
    const version = (await curl(`${gateway()}/api/v1/version`, { cacert })).json() as Record<string, string>;
    expect(version.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(version.go_version).toMatch(/^node\d+\./);
    expect((await curl(`${gateway()}/api/v1/auth/info`, { cacert })).json()).toEqual({
      auth_type: 'api-key',
      required: true,
    });
  });

  it('drives the renewal-policy slice end to end', async () => {
    expect((await curl(`${gateway()}/api/v1/renewal-policies`, { cacert })).status).toBe(401);

    const created = await curl(`${gateway()}/api/v1/renewal-policies`, {
      cacert,
      key,
      method: 'POST',
      body: { name: 'E2E Web', max_retries: 2 },
    });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({
      id: 'rp-e2e-web',
      renewal_window_days: 30,
      retry_interval_seconds: 3600,
    });

    const duplicate = await curl(`${gateway()}/api/v1/renewal-policies`, {
      cacert,
      key,
      method: 'POST',
      body: { name: 'e2e web', max_retries: 2 },
    });
    expect(duplicate.status).toBe(409);

    const updated = await curl(`${gateway()}/api/v1/renewal-policies/rp-e2e-web`, {
      cacert,
      key,
      method: 'PUT',
      body: { renewal_window_days: 14 },
    });
    expect(updated.json()).toMatchObject({ id: 'rp-e2e-web', renewal_window_days: 14, max_retries: 2 });

    const list = (
      await curl(`${gateway()}/api/v1/renewal-policies?per_page=1&page=2`, { cacert, key })
    ).json() as { data: unknown[]; total: number; page: number; per_page: number };
    expect(list).toMatchObject({ page: 2, per_page: 1, total: 2 });
    expect(list.data).toHaveLength(1);

    expect((await curl(`${gateway()}/api/v1/renewal-policies?per_page=501`, { cacert, key })).status).toBe(
      400,
    );
    expect(
      (await curl(`${gateway()}/api/v1/renewal-policies/rp-e2e-web`, { cacert, key, method: 'DELETE' }))
        .status,
    ).toBe(204);
    const gone = await curl(`${gateway()}/api/v1/renewal-policies/rp-e2e-web`, { cacert, key });
    expect(gone.status).toBe(404);
    expect(gone.json()).toMatchObject({ code: 'renewal_policy_not_found', request_id: expect.any(String) });
  });

  it('stops every service when the launcher is stopped', async () => {
    const exited = new Promise<number | null>((r) => launcher.once('exit', r));
    launcher.kill('SIGTERM');
    expect(await exited).toBe(0);
    const after = await run('curl', ['--silent', '--cacert', cacert, `${gateway()}/health`]);
    expect(after.code).not.toBe(0);
  });
});
