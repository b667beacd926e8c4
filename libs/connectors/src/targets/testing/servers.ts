// Helpers of the real-server integration tests: free loopback ports, the served fingerprint as
// the real `openssl s_client` sees it, and server processes the test starts and stops itself.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { certificateFingerprint } from '../engine/material';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The leaf fingerprint served at 127.0.0.1:port per `openssl s_client` (optionally STARTTLS). */
export function opensslServedFingerprint(
  port: number,
  options: { serverName?: string; starttls?: 'smtp' | 'imap' } = {},
): string {
  const args = [
    's_client',
    '-connect',
    `127.0.0.1:${port}`,
    '-servername',
    options.serverName ?? 'localhost',
  ];
  if (options.starttls) args.push('-starttls', options.starttls);
  const output = execFileSync('openssl', args, {
    input: '',
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: 10_000,
  }).toString();
  const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(output);
  if (!pem) throw new Error('openssl s_client saw no certificate');
  // The same fingerprint again from `openssl x509`, so the comparison does not rest on our parser.
  const hex = opensslFingerprint(pem[0]);
  if (hex !== certificateFingerprint(pem[0])) throw new Error('openssl and node disagree on the fingerprint');
  return hex;
}

/** The SHA-256 fingerprint (lower-case hex, no colons) of the entry in a `keytool -list -v` listing. */
export function keytoolEntrySha256(listing: string): string | undefined {
  return /SHA256: ([0-9A-F:]+)/.exec(listing)?.[1].replace(/:/g, '').toLowerCase();
}

/** A certificate's SHA-256 fingerprint (lower-case hex, no colons) per `openssl x509`. */
export function opensslFingerprint(pem: string): string {
  return execFileSync('openssl', ['x509', '-noout', '-fingerprint', '-sha256'], { input: pem })
    .toString()
    .replace(/^.*=/, '')
    .replace(/[:\s]/g, '')
    .toLowerCase();
}

/** Polls until the probe holds (no fixed sleeps). */
export async function waitUntil(
  probe: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await probe()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface ServerProcess {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/** A foreground server process; its output is kept for failure messages. */
export function startServer(command: string, args: string[], env?: NodeJS.ProcessEnv): ServerProcess {
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: env ? { ...process.env, ...env } : undefined,
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return {
    child,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export function hasBinary(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
