import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, ConnectionOptions, TLSSocket } from 'node:tls';
import {
  createTestDatabase,
  createTlsFixture,
  fingerprintOf,
  httpsRequest,
  runCommand,
  ServiceProcess,
  startServiceProcess,
  TestDatabase,
  testNatsUrl,
  uniqueNamespace,
  validServiceEnv,
} from '@certlane/testing';

/**
 * The listener of a real service process (spec 1): TLS 1.3 only, no plaintext, and the
 * certificate is swapped on SIGHUP without a restart (reloadTlsOnSighup).
 */

interface Pair {
  certPem: string;
  keyPem: string;
  fingerprint: string;
}

/** A fresh certificate and key (the harness's TLS fixture), held in memory. */
async function newPair(commonName: string): Promise<Pair> {
  const { dir, certPem, keyPath, fingerprint } = await createTlsFixture(commonName);
  const keyPem = readFileSync(keyPath, 'utf8');
  rmSync(dir, { recursive: true, force: true });
  return { certPem, keyPem, fingerprint };
}

/**
 * Retries `probe` (a failure counts as "not yet") until it returns a value or the deadline passes;
 * `guard` runs before each attempt and throws to give up at once (the process died).
 */
async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  guard: () => void,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    guard();
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function getStatus(port: number, path: string, ca: string): Promise<number> {
  return (await httpsRequest(`https://127.0.0.1:${port}${path}`, { ca })).status;
}

/** Completes a handshake with the given options; resolves with the socket or rejects with the TLS error. */
function handshake(port: number, options: ConnectionOptions): Promise<TLSSocket> {
  return new Promise((resolveSocket, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ...options });
    socket.once('secureConnect', () => resolveSocket(socket));
    socket.once('error', reject);
  });
}

async function servedFingerprint(port: number): Promise<string> {
  const socket = await handshake(port, { rejectUnauthorized: false });
  try {
    return fingerprintOf(socket.getPeerX509Certificate()!.raw);
  } finally {
    socket.destroy();
  }
}

const openssl = (args: string[]) => runCommand('openssl', args, { timeoutMs: 15_000 });

describe('TLS listener of a running service', () => {
  const dir = mkdtempSync(join(tmpdir(), 'certlane-tls-listener-'));
  const certPath = join(dir, 'server.crt');
  const keyPath = join(dir, 'server.key');
  let database: TestDatabase;
  let original: Pair;
  let service: ServiceProcess;
  let child: ChildProcess;
  let port: number;

  const assertAlive = () => {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`issuance exited (${child.exitCode ?? child.signalCode}):\n${service.output()}`);
    }
  };
  /** The complete JSON log lines written so far (a trailing partial line waits for the next call). */
  const logLines = () =>
    service
      .output()
      .split('\n')
      .slice(0, -1)
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { message?: string; pid?: number; level?: string });

  beforeAll(async () => {
    original = await newPair('original');
    writeFileSync(certPath, original.certPem);
    writeFileSync(keyPath, original.keyPem, { mode: 0o600 });
    database = await createTestDatabase('tlslistener');
    service = await startServiceProcess(
      'issuance',
      validServiceEnv({
        SERVICE_TLS_CERT_PATH: certPath,
        SERVICE_TLS_KEY_PATH: keyPath,
        SERVICE_DATABASE_URL: database.url,
        SERVICE_NATS_URL: testNatsUrl(),
        SERVICE_NATS_NAMESPACE: uniqueNamespace('tls'),
        SERVICE_LOG_LEVEL: 'info',
      }),
      { ca: original.certPem, readyTimeoutMs: 30_000 },
    );
    ({ child, port } = service);
  }, 60_000);

  afterAll(async () => {
    if (service) {
      // SIGTERM first; a process still running after 10 s is killed.
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await service.stop();
      clearTimeout(killer);
    }
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('protocol versions', () => {
    it('refuses a client that speaks at most TLS 1.2', async () => {
      const attempt = handshake(port, { ca: original.certPem, maxVersion: 'TLSv1.2' });
      await expect(attempt).rejects.toMatchObject({
        code: expect.stringMatching(/PROTOCOL_VERSION|UNSUPPORTED_PROTOCOL/),
      });
    });

    it('accepts a TLS 1.3 client, negotiates TLSv1.3 and presents a certificate the CA verifies', async () => {
      const socket = await handshake(port, { ca: original.certPem, minVersion: 'TLSv1.3' });
      try {
        expect(socket.getProtocol()).toBe('TLSv1.3');
        expect(socket.authorized).toBe(true);
      } finally {
        socket.destroy();
      }
    });

    it('fails `openssl s_client -tls1_2`', async () => {
      const result = await openssl(['s_client', '-connect', `127.0.0.1:${port}`, '-tls1_2']);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('alert protocol version');
      expect(result.output).toContain('no peer certificate available');
      expect(result.output).toContain('Cipher is (NONE)');
    });

    it('succeeds with `openssl s_client -tls1_3` and reports TLSv1.3', async () => {
      const caFile = join(dir, 'ca.pem');
      writeFileSync(caFile, original.certPem);
      const result = await openssl([
        's_client',
        '-connect',
        `127.0.0.1:${port}`,
        '-tls1_3',
        '-CAfile',
        caFile,
        '-verify_return_error',
      ]);
      expect({ code: result.code, protocol: /New, TLSv1\.3, Cipher is TLS_/.test(result.output) }).toEqual({
        code: 0,
        protocol: true,
      });
      expect(result.output).toContain('Verify return code: 0 (ok)');
    });

    it('does not answer plaintext HTTP with 200', async () => {
      const outcome = await new Promise<{ status?: number; error?: string }>((resolveOutcome) => {
        const req = httpGet(
          { host: '127.0.0.1', port, path: '/health', agent: false, timeout: 5_000 },
          (res) => {
            res.resume();
            resolveOutcome({ status: res.statusCode });
          },
        );
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', (error: NodeJS.ErrnoException) =>
          resolveOutcome({ error: error.code ?? error.message }),
        );
      });
      expect(outcome.status).not.toBe(200);
      // There is no plaintext listener: the TLS server drops the request without any HTTP answer.
      expect(outcome).toEqual({ error: expect.any(String) });
    });
  });

  describe('certificate reload on SIGHUP', () => {
    let replacement: Pair;

    it('serves a new certificate written over the same paths after SIGHUP, in the same process', async () => {
      replacement = await newPair('replacement');
      expect(replacement.fingerprint).not.toBe(original.fingerprint);
      expect(await servedFingerprint(port)).toBe(original.fingerprint);
      const pid = child.pid;

      writeFileSync(certPath, replacement.certPem);
      writeFileSync(keyPath, replacement.keyPem, { mode: 0o600 });
      expect(child.kill('SIGHUP')).toBe(true);

      await pollUntil(
        'the new certificate to be served',
        async () => ((await servedFingerprint(port)) === replacement.fingerprint ? true : undefined),
        assertAlive,
      );
      expect(child.pid).toBe(pid);
      expect({ exitCode: child.exitCode, signalCode: child.signalCode }).toEqual({
        exitCode: null,
        signalCode: null,
      });
      expect(await getStatus(port, '/health', replacement.certPem)).toBe(200);
      // The swapped-in context must still be TLS 1.3 only.
      await expect(handshake(port, { ca: replacement.certPem, maxVersion: 'TLSv1.2' })).rejects.toMatchObject(
        {
          code: expect.stringMatching(/PROTOCOL_VERSION|UNSUPPORTED_PROTOCOL/),
        },
      );
      const reloaded = await pollUntil(
        'the reload log line',
        async () => logLines().find((line) => line.message === 'TLS certificate reloaded'),
        assertAlive,
      );
      expect(reloaded.pid).toBe(pid);
      expect(logLines().filter((line) => /listening/.test(line.message ?? ''))).toHaveLength(1);
    });

    it('keeps the previous certificate in service when SIGHUP finds a broken file', async () => {
      expect(replacement).toBeDefined();
      writeFileSync(certPath, '-----BEGIN CERTIFICATE-----\ngarbage\n-----END CERTIFICATE-----\n');
      expect(child.kill('SIGHUP')).toBe(true);

      const failure = await pollUntil(
        'the reload failure log line',
        async () =>
          logLines().find((line) => (line.message ?? '').startsWith('TLS certificate reload failed')),
        assertAlive,
      );
      expect(failure.level).toBe('error');
      expect(await servedFingerprint(port)).toBe(replacement.fingerprint);
      expect(await getStatus(port, '/health', replacement.certPem)).toBe(200);
      expect({ exitCode: child.exitCode, signalCode: child.signalCode }).toEqual({
        exitCode: null,
        signalCode: null,
      });
    });
  });
});
