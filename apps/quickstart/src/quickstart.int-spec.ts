import { ChildProcess, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { CONFIG_ERROR_EXIT_CODE } from '@certlane/platform';
import {
  createTlsFixture,
  eventually,
  fingerprintOf,
  freePort,
  httpsRequest,
  ProcessRun,
  runCommand,
} from '@certlane/testing';

const QUICKSTART = resolve(__dirname, '../../../dist/apps/quickstart/src/main.js');
/** initdb plus the first start of every schema, on 2 shared cores. */
const BOOT_TIMEOUT_MS = 120_000;

/**
 * A data directory the embedded Postgres can reach: mkdtemp makes its parent 0700, which the
 * `postgres` user (the one Postgres runs as when the tests run as root) cannot traverse.
 */
function reachableParent(): string {
  const parent = mkdtempSync(join(tmpdir(), 'certlane-quickstart-'));
  chmodSync(parent, 0o755);
  return parent;
}

function quickstartEnv(dataDir: string, port: number, postgresPort: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    SERVICE_DATA_DIR: dataDir,
    SERVICE_PORT: String(port),
    SERVICE_LISTEN_ADDRESS: '127.0.0.1',
    SERVICE_EMBEDDED_POSTGRES_PORT: String(postgresPort),
    SERVICE_RENEWAL_SWEEP_INTERVAL: '1h',
  };
}

interface Served {
  status?: number;
  fingerprint?: string;
  error?: string;
}

/** One GET on a new connection (a new handshake), reporting which certificate was served. */
function getOnNewConnection(url: string, ca: string[]): Promise<Served> {
  return new Promise((done) => {
    const req = request(url, { ca, minVersion: 'TLSv1.3', agent: false, timeout: 10_000 }, (res) => {
      const peer = (res.socket as TLSSocket).getPeerCertificate();
      res.resume();
      res.on('end', () =>
        done({
          status: res.statusCode,
          fingerprint: fingerprintOf(new X509Certificate(peer.raw).toString()),
        }),
      );
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => done({ error: error.code ?? error.message }));
    req.end();
  });
}

/** Processes whose command line names the directory (the postmaster is started with -D <dir>). */
async function processesUsing(dir: string): Promise<string[]> {
  const ps = await runCommand('ps', ['-eo', 'pid,args'], { timeoutMs: 10_000 });
  return ps.stdout.split('\n').filter((line) => line.includes(dir));
}

describe('npm start (the quick start in one process, embedded Postgres)', () => {
  let parent: string;
  let child: ChildProcess;
  let output = '';
  let base: string;
  let certPath: string;
  let keyPath: string;
  let originalCert: string;

  let port: number;
  let postgresPort: number;

  /** Starts the quick start on the data directory and waits until it is ready. */
  async function start(): Promise<void> {
    output = '';
    // Its own process group, as a terminal's foreground job: Ctrl-C is SIGINT to the group.
    child = spawn(process.execPath, [QUICKSTART], {
      env: { ...quickstartEnv(join(parent, 'data'), port, postgresPort), SERVICE_KEYGEN_MODE: 'server' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`the quick start exited ${child.exitCode}:\n${output}`);
        if (!output.includes('is running at')) return false;
        const ready = await httpsRequest(`${base}/ready`, { ca: readFileSync(certPath, 'utf8') }).catch(
          () => undefined,
        );
        return ready?.status === 200;
      },
      'the quick start to be ready',
      BOOT_TIMEOUT_MS,
    );
  }

  beforeAll(async () => {
    parent = reachableParent();
    const dataDir = join(parent, 'data');
    port = await freePort();
    postgresPort = await freePort();
    base = `https://127.0.0.1:${port}`;
    certPath = join(dataDir, 'tls', 'server.crt');
    keyPath = join(dataDir, 'tls', 'server.key');
    await start();
    originalCert = readFileSync(certPath, 'utf8');
  }, BOOT_TIMEOUT_MS + 10_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    // Whatever a failed test left running on its data directory.
    for (const line of await processesUsing(parent))
      process.kill(Number(line.trim().split(' ')[0]), 'SIGKILL');
    if (parent) rmSync(parent, { recursive: true, force: true });
  }, 30_000);

  it('serves the ACME directory on its one listener (ADR 0053)', async () => {
    const answer = await new Promise<{ status: number; body: string; nonce?: string }>((done, fail) => {
      const req = request(`${base}/acme/directory`, { ca: originalCert, agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () =>
          done({
            status: res.statusCode ?? 0,
            body,
            nonce: res.headers['replay-nonce'] as string | undefined,
          }),
        );
      });
      req.once('error', fail);
      req.end();
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).newOrder).toBe(`${base}/acme/new-order`);
    // Nonces come from newNonce and POST answers, not the directory (as Boulder's).
    expect(answer.nonce).toBeUndefined();
  });

  it('reloads a new certificate on SIGHUP without failing a request and keeps running with its database', async () => {
    const replacement = await createTlsFixture('localhost');
    const ca = [originalCert, replacement.certPem];
    const results: Served[] = [];
    let stop = false;
    const loop = async () => {
      while (!stop) results.push(await getOnNewConnection(`${base}/health`, ca));
    };
    const loops = Promise.all([loop(), loop()]);
    const servedBy = (fingerprint: string) => results.filter((r) => r.fingerprint === fingerprint).length;

    await eventually(() => servedBy(fingerprintOf(originalCert)) >= 20, 'requests on the first certificate');
    copyFileSync(replacement.certPath, certPath);
    copyFileSync(replacement.keyPath, keyPath);
    expect(child.kill('SIGHUP')).toBe(true);
    await eventually(
      () => servedBy(replacement.fingerprint) >= 20 || child.exitCode !== null || child.signalCode !== null,
      'requests on the new certificate',
    );
    stop = true;
    await loops;

    expect({ exitCode: child.exitCode, signalCode: child.signalCode }).toEqual({
      exitCode: null,
      signalCode: null,
    });
    expect(results.filter((r) => r.error !== undefined || r.status !== 200)).toEqual([]);
    expect(servedBy(replacement.fingerprint)).toBeGreaterThanOrEqual(20);
    expect(results[results.length - 1].fingerprint).toBe(replacement.fingerprint);
    // The embedded Postgres survived too: an authenticated read goes to the database.
    const secrets = JSON.parse(readFileSync(join(parent, 'data', 'secrets.json'), 'utf8'));
    const policies = await httpsRequest(`${base}/api/v1/renewal-policies`, {
      ca: replacement.certPem,
      headers: { authorization: `Bearer ${secrets.auth_secret}` },
    });
    expect(policies.status).toBe(200);
    expect({ exitCode: child.exitCode, signalCode: child.signalCode }).toEqual({
      exitCode: null,
      signalCode: null,
    });
    rmSync(replacement.dir, { recursive: true, force: true });
  }, 90_000);

  it(
    'stops on Ctrl-C: answers the revocations in flight, records each in the CRL, stops Postgres last, exits 0',
    async () => {
      const dataDir = join(parent, 'data');
      const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'));
      const call = (method: string, path: string, body?: object) =>
        httpsRequest(`${base}${path}`, {
          method,
          ca: readFileSync(certPath, 'utf8'),
          headers: { authorization: `Bearer ${secrets.auth_secret}`, 'content-type': 'application/json' },
          body: body && JSON.stringify(body),
        });
      const ids = Array.from({ length: 8 }, (_, i) => `stop-${i}`);
      for (const id of ids) {
        expect(
          (await call('POST', '/api/v1/certificates', { id, common_name: `${id}.example.test` })).status,
        ).toBe(201);
      }
      const exited = new Promise<{ code: number | null; signal: string | null }>((done) =>
        child.once('exit', (code, signal) => done({ code, signal })),
      );
      // Revocations in flight when the signal comes: each is answered, or never reached the listener.
      const answers = ids.map((id) =>
        call('POST', `/api/v1/certificates/${id}/revoke`, { reason: 'superseded' }).then(
          (response) => response.status,
          (error: NodeJS.ErrnoException) => error.code ?? error.message,
        ),
      );
      await new Promise((done) => setTimeout(done, 30));
      process.kill(-child.pid!, 'SIGINT');

      const statuses = await Promise.all(answers);
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(statuses.filter((status) => status !== 200 && status !== 'ECONNREFUSED')).toEqual([]);
      expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
      expect(await processesUsing(dataDir)).toEqual([]);

      // Started again on the same data: every revocation that was answered is in the CRL.
      await start();
      const revoked = ids.filter((_, i) => statuses[i] === 200);
      const serials: string[] = [];
      for (const id of revoked) {
        const versions = (await call('GET', `/api/v1/certificates/${id}/versions`)).json() as {
          data: { serial_number: string }[];
        };
        serials.push(versions.data[0].serial_number);
      }
      await eventually(
        async () => {
          const crl = (await call('GET', '/api/v1/crl?limit=1000')).json() as {
            entries: { serial_number: string }[];
          };
          const listed = new Set(crl.entries.map((entry) => entry.serial_number));
          return serials.every((serial) => listed.has(serial));
        },
        'every answered revocation in the CRL',
        10_000,
      );
    },
    BOOT_TIMEOUT_MS + 60_000,
  );
});

describe('npm start when the embedded Postgres cannot start', () => {
  const oneClearLine = (run: ProcessRun) => {
    const lines = run.stderr.split('\n').filter((line) => line.startsWith('certlane:'));
    expect({ lines: lines.length, output: run.output }).toEqual({ lines: 1, output: run.output });
    expect(run.output).not.toMatch(/TypeError|\n\s+at /);
    return lines[0];
  };

  it(
    'names the busy port and SERVICE_EMBEDDED_POSTGRES_PORT, and exits non-zero',
    async () => {
      const parent = reachableParent();
      const holder: Server = createServer();
      await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
      const busyPort = (holder.address() as { port: number }).port;
      try {
        const run = await runCommand(process.execPath, [QUICKSTART], {
          env: quickstartEnv(join(parent, 'data'), await freePort(), busyPort),
          timeoutMs: BOOT_TIMEOUT_MS,
        });
        expect(run.code).toBe(CONFIG_ERROR_EXIT_CODE);
        const line = oneClearLine(run);
        expect(line).toContain(`127.0.0.1:${busyPort}`);
        expect(line).toContain('already in use');
        expect(line).toContain('set SERVICE_EMBEDDED_POSTGRES_PORT');
      } finally {
        holder.close();
        rmSync(parent, { recursive: true, force: true });
      }
    },
    BOOT_TIMEOUT_MS + 10_000,
  );

  it(
    'names a busy SERVICE_PORT in one line, exits 78 and stops its embedded Postgres',
    async () => {
      const parent = reachableParent();
      const holder: Server = createServer();
      await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
      const busyPort = (holder.address() as { port: number }).port;
      try {
        const run = await runCommand(process.execPath, [QUICKSTART], {
          env: quickstartEnv(join(parent, 'data'), busyPort, await freePort()),
          timeoutMs: BOOT_TIMEOUT_MS,
        });
        expect(run.code).toBe(CONFIG_ERROR_EXIT_CODE);
        const line = oneClearLine(run);
        expect(line).toContain(`cannot listen on 127.0.0.1:${busyPort}: the port is already in use`);
        expect(line).toContain('set SERVICE_PORT');
        await eventually(
          async () => (await processesUsing(parent)).length === 0,
          'the embedded Postgres to stop',
          30_000,
        );
      } finally {
        holder.close();
        rmSync(parent, { recursive: true, force: true });
      }
    },
    BOOT_TIMEOUT_MS + 10_000,
  );

  it(
    'names the directory it cannot write and SERVICE_DATA_DIR, and exits non-zero',
    async () => {
      // Not writable by a non-root user, not traversable by the `postgres` user Postgres runs as
      // under root: the unwritable directory either way.
      const parent = mkdtempSync(join(tmpdir(), 'certlane-quickstart-'));
      chmodSync(parent, 0o500);
      const dataDir = join(parent, 'data');
      try {
        const run = await runCommand(process.execPath, [QUICKSTART], {
          env: quickstartEnv(dataDir, await freePort(), await freePort()),
          timeoutMs: BOOT_TIMEOUT_MS,
        });
        expect(run.code).toBe(CONFIG_ERROR_EXIT_CODE);
        const line = oneClearLine(run);
        expect(line).toContain(dataDir);
        expect(line).toMatch(/cannot (be written|write)/);
        expect(line).toContain('set SERVICE_DATA_DIR');
      } finally {
        chmodSync(parent, 0o700);
        rmSync(parent, { recursive: true, force: true });
      }
    },
    BOOT_TIMEOUT_MS + 10_000,
  );
});
