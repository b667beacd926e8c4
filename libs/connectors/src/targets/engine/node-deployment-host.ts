import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { isIP, Socket, connect as netConnect } from 'node:net';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import type { CommandResult, DeploymentHost } from '../target-connector';
import { readEndpoint } from './endpoint';
import { startTls } from './starttls';

export interface NodeDeploymentHostOptions {
  /** Default command timeout when the caller gives none (60 s). */
  commandTimeoutMs?: number;
  /** TCP connect + (STARTTLS) + TLS handshake deadline (5 s). */
  connectTimeoutMs?: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

const MAX_OUTPUT = 1024 * 1024;

/** The PATH a command gets when the process has none (systemd's default). */
export const DEFAULT_COMMAND_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The whole environment of a command (ADR 0029 amendment): PATH (the process's absolute entries,
 * else `DEFAULT_COMMAND_PATH`), and LANG / LC_ALL when set. Nothing else is inherited: the
 * agent's API key, deployment-dispatch's database URL and config encryption key (SERVICE_*)
 * and anything else in the process environment stay out of reload and validate commands and
 * of whatever they start. No target config key sets variables.
 */
export function commandEnvironment(parent: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  // An empty or relative entry would look commands up in the working directory.
  const path = (parent.PATH ?? '')
    .split(':')
    .filter((entry) => entry.startsWith('/'))
    .join(':');
  const env: NodeJS.ProcessEnv = { PATH: path || DEFAULT_COMMAND_PATH };
  for (const name of ['LANG', 'LC_ALL']) if (parent[name]) env[name] = parent[name];
  return env;
}

/** `host:port`, `[v6]:port`; throws otherwise. */
export function parseEndpoint(endpoint: string): { host: string; port: number } {
  const parsed = readEndpoint(endpoint);
  if (!parsed) throw new Error(`endpoint must be host:port`);
  return parsed;
}

/**
 * The real side effects: commands through execFile (never a shell) with a timeout and only
 * `commandEnvironment()`, and the
 * served leaf read over TLS (SNI = the server name, or the endpoint's host when it is a name;
 * the chain is not validated: we compare fingerprints), directly or after SMTP / IMAP STARTTLS.
 */
export class NodeDeploymentHost implements DeploymentHost {
  constructor(private readonly options: NodeDeploymentHostOptions = {}) {}

  run(argv: readonly string[], options: { timeoutMs?: number } = {}): Promise<CommandResult> {
    const timeout = options.timeoutMs ?? this.options.commandTimeoutMs ?? 60_000;
    return new Promise((resolve) => {
      if (argv.length === 0) {
        resolve({ exitCode: null, stdout: '', stderr: 'empty command', timedOut: false });
        return;
      }
      execFile(
        argv[0],
        argv.slice(1),
        {
          shell: false,
          env: commandEnvironment(),
          timeout,
          killSignal: 'SIGKILL',
          maxBuffer: MAX_OUTPUT,
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          if (!error) {
            resolve({ exitCode: 0, stdout: String(stdout), stderr: String(stderr), timedOut: false });
            return;
          }
          const failure = error as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null };
          const code = typeof failure.code === 'number' ? failure.code : null;
          const timedOut = Boolean(failure.killed) && failure.signal === 'SIGKILL' && code === null;
          resolve({
            exitCode: code,
            stdout: String(stdout ?? ''),
            stderr:
              String(stderr ?? '') ||
              (typeof failure.code === 'string' ? `${failure.code}: ${failure.message}` : ''),
            timedOut,
          });
        },
      );
    });
  }

  async servedFingerprint(
    endpoint: string,
    serverName?: string,
    options: { starttls?: 'smtp' | 'imap' } = {},
  ): Promise<string> {
    const { host, port } = parseEndpoint(endpoint);
    const sni = serverName ?? (isIP(host) ? undefined : host);
    const timeout = this.options.connectTimeoutMs ?? 5_000;
    const raw = await withDeadline(timeout, async (track) => {
      let plain: Socket | undefined;
      if (options.starttls) {
        plain = track(await connectPlain(host, port));
        await startTls(plain, options.starttls);
      }
      const tls = track(await handshake({ host, port, socket: plain, servername: sni }));
      const certificate = tls.getPeerX509Certificate();
      tls.destroy();
      if (!certificate) throw new Error('the endpoint served no certificate');
      return certificate.raw;
    });
    return createHash('sha256').update(raw).digest('hex');
  }

  log(message: string, fields?: Record<string, unknown>): void {
    this.options.log?.(message, fields);
  }
}

type Track = <S extends Socket>(socket: S) => S;

async function withDeadline<T>(ms: number, work: (track: Track) => Promise<T>): Promise<T> {
  const sockets: Socket[] = [];
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no TLS handshake within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([
      work((socket) => {
        sockets.push(socket);
        return socket;
      }),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
    for (const socket of sockets) socket.destroy();
  }
}

function connectPlain(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host, port });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

function handshake(options: {
  host: string;
  port: number;
  socket?: Socket;
  servername?: string;
}): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const tls = tlsConnect({
      host: options.host,
      port: options.port,
      socket: options.socket,
      servername: options.servername,
      // We compare the leaf's fingerprint; trust in the chain is not what is checked here.
      rejectUnauthorized: false,
    });
    tls.once('secureConnect', () => {
      tls.off('error', reject);
      resolve(tls);
    });
    tls.once('error', reject);
  });
}
