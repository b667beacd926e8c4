import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { builtEntry, createTlsFixture, TlsFixture, validServiceEnv } from '@certlane/testing';

/**
 * A container's PID 1 gets no default SIGTERM handling, so a service still waiting for its database
 * must end on SIGTERM by itself, at once and cleanly, not at the kill after the grace period.
 */
describe('a service stopped while it is starting (built issuance binary)', () => {
  let tls: TlsFixture;

  beforeAll(async () => {
    tls = await createTlsFixture();
  });

  afterAll(() => {
    if (tls) rmSync(tls.dir, { recursive: true, force: true });
  });

  it('exits 0 on SIGTERM while it retries an unreachable database, saying so', async () => {
    const child = spawn(process.execPath, [builtEntry('issuance')], {
      env: {
        PATH: process.env.PATH,
        ...validServiceEnv({
          SERVICE_TLS_CERT_PATH: tls.certPath,
          SERVICE_TLS_KEY_PATH: tls.keyPath,
          // Nothing listens here: the service retries for 30 s before giving up.
          SERVICE_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
          SERVICE_NATS_URL: 'nats://127.0.0.1:1',
        }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    // Stopped once it is waiting for the database, the state a pod is in while Postgres is down.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('database not reachable yet')) resolve();
      });
      child.once('exit', () => reject(new Error(`exited before retrying the database:\n${stdout}`)));
    });
    const stoppedAt = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    // Well before the next retries would have run out (30 s).
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(stdout).toContain('stopped while starting');
  }, 60_000);
});
