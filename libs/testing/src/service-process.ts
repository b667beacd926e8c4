import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { httpsRequest } from './https-client';

const WORKSPACE = resolve(__dirname, '../../..');

export interface ServiceProcess {
  name: string;
  port: number;
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

export function builtEntry(app: string): string {
  const entry = join(WORKSPACE, 'dist', 'apps', app, 'src', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first (npm test does)`);
  return entry;
}

export interface ProcessRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved in the order they arrived. */
  output: string;
}

/**
 * Runs a command to its end and collects what it printed; SIGKILLs it after `timeoutMs`. Without
 * `env` the command inherits this process's environment.
 */
export function runCommand(
  command: string,
  args: string[],
  options: { env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<ProcessRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // 'close' (not 'exit') so both pipes are fully read.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code, signal, stdout, stderr, output });
    });
  });
}

/** Runs a built service that is expected to exit on its own (a refused configuration, say). */
export function runToExit(
  app: string,
  env: Record<string, string | undefined>,
  options: { timeoutMs?: number } = {},
): Promise<ProcessRun> {
  return runCommand(process.execPath, [builtEntry(app)], {
    env: { PATH: process.env.PATH, ...env },
    timeoutMs: options.timeoutMs,
  });
}

/** How much of a crashed service's output the harness prints. */
const CRASH_OUTPUT_CHARS = 6000;

/** How often a start is retried when another process took the free port first. */
const PORT_RACE_ATTEMPTS = 5;

class AddressInUse extends Error {}

/**
 * Runs a built service as its own process and resolves once its /ready answers 200. A port found
 * free can be taken by a parallel test before the service binds it; that start is retried on a
 * new port.
 */
export async function startServiceProcess(
  name: string,
  env: Record<string, string | undefined>,
  options: { ca: string; readyTimeoutMs?: number },
): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(name, env, options, await freePort());
    } catch (error) {
      if (!(error instanceof AddressInUse) || attempt >= PORT_RACE_ATTEMPTS) throw error;
    }
  }
}

async function startOnce(
  name: string,
  env: Record<string, string | undefined>,
  options: { ca: string; readyTimeoutMs?: number },
  port: number,
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [builtEntry(name)], {
    env: {
      PATH: process.env.PATH,
      // The renewal loop (ADR 0028) would renew the short-lived certificates of unrelated tests
      // after a minute; tests of the loop set their own interval.
      SERVICE_RENEWAL_SWEEP_INTERVAL: '1h',
      ...env,
      SERVICE_PORT: String(port),
      SERVICE_LISTEN_ADDRESS: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const url = `https://127.0.0.1:${port}`;
  let ready = false;
  let stopping = false;
  const service: ServiceProcess = {
    name,
    port,
    url,
    child,
    output: () => output,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  // A service that dies on its own mid-test (an uncaught error) leaves the test to fail on what
  // follows, far from the cause: its last output goes to stderr, where the CI log keeps it.
  child.once('exit', (code) => {
    if (stopping || code === null || code === 0 || !ready) return;
    process.stderr.write(
      `\n[certlane testing] ${name} (pid ${child.pid}) exited on its own with code ${code}; its last output:\n` +
        `${output.slice(-CRASH_OUTPUT_CHARS)}\n`,
    );
  });
  // Generous: on 2 shared cores a Nest process can take tens of seconds to boot under load.
  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000);
  for (;;) {
    if (child.exitCode !== null) {
      const message = `${name} exited with ${child.exitCode}:\n${output}`;
      throw output.includes(`EADDRINUSE: address already in use 127.0.0.1:${port}`)
        ? new AddressInUse(message)
        : new Error(message);
    }
    const answer = await httpsRequest(`${url}/ready`, { ca: options.ca }).catch(() => undefined);
    if (answer?.status === 200) {
      ready = true;
      return service;
    }
    if (Date.now() > deadline) {
      await service.stop();
      throw new Error(`${name} was not ready within the timeout:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
