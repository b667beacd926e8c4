import { Client, ClientChannel, ConnectConfig, SFTPWrapper } from 'ssh2';
import type { CommandResult } from '../target-connector';
import { hostKeyDecision } from './host-key';

export interface SshConnectOptions {
  host: string;
  port: number;
  username: string;
  /** Exactly one of the two, as the target's auth_method says. */
  privateKey?: string;
  password?: string;
  /** The pinned `SHA256:<base64>` host key fingerprint; without it nothing connects. */
  hostKeyFingerprint?: string;
  /** TCP connect, handshake and authentication together (default 15 s). */
  readyTimeoutMs?: number;
}

/** The connection was refused before authentication: the host key is not the pinned one. */
export class HostKeyRefusedError extends Error {
  constructor(reason: string) {
    super(`host key refused: ${reason}`);
    this.name = 'HostKeyRefusedError';
  }
}

const OUTPUT_CAP = 1024 * 1024;

/**
 * One SSH connection to a target host (ssh2): the host key must equal the pin, then password or
 * private-key authentication. Error messages name the host and the reason, never the secret.
 */
export class SshSession {
  private sftpChannel?: Promise<SFTPWrapper>;

  private constructor(private readonly client: Client) {}

  static connect(options: SshConnectOptions): Promise<SshSession> {
    const client = new Client();
    let refusal: string | undefined;
    const config: ConnectConfig = {
      host: options.host,
      port: options.port,
      username: options.username,
      readyTimeout: options.readyTimeoutMs ?? 15_000,
      tryKeyboard: false,
      hostVerifier: (key: Buffer) => {
        const decision = hostKeyDecision(options.hostKeyFingerprint, key);
        if (!decision.accept) refusal = decision.reason;
        return decision.accept;
      },
      ...(options.privateKey !== undefined ? { privateKey: options.privateKey } : {}),
      ...(options.password !== undefined ? { password: options.password } : {}),
    };
    return new Promise((resolve, reject) => {
      const onError = (error: Error & { level?: string }) => {
        client.removeListener('ready', onReady);
        client.end();
        if (refusal) return reject(new HostKeyRefusedError(refusal));
        const where = `${options.host}:${options.port}`;
        const text =
          error.level === 'client-authentication'
            ? `authentication as ${options.username} failed`
            : error.message;
        reject(new Error(`ssh to ${where}: ${text}`));
      };
      const onReady = () => {
        client.removeListener('error', onError);
        client.on('error', () => undefined);
        resolve(new SshSession(client));
      };
      client.once('error', onError);
      client.once('ready', onReady);
      try {
        client.connect(config);
      } catch (error) {
        // A private key that does not parse is thrown synchronously (its text is not echoed).
        client.removeAllListeners('error');
        reject(new Error(`ssh to ${options.host}:${options.port}: ${(error as Error).message}`));
      }
    });
  }

  /** The SFTP subsystem, opened once per session. */
  sftp(): Promise<SFTPWrapper> {
    this.sftpChannel ??= new Promise((resolve, reject) =>
      this.client.sftp((error, sftp) => (error ? reject(error) : resolve(sftp))),
    );
    return this.sftpChannel;
  }

  /** Runs one command line (see remoteCommandLine) with a timeout; output capped at 1 MiB each. */
  exec(line: string, timeoutMs: number): Promise<CommandResult> {
    return new Promise((resolve) => {
      this.client.exec(line, (error, channel: ClientChannel) => {
        if (error) return resolve({ exitCode: null, stdout: '', stderr: error.message, timedOut: false });
        let stdout = '';
        let stderr = '';
        let timedOut = false;
        let exitCode: number | null = null;
        channel.on('data', (chunk: Buffer) => {
          if (stdout.length < OUTPUT_CAP) stdout += chunk.toString();
        });
        channel.stderr.on('data', (chunk: Buffer) => {
          if (stderr.length < OUTPUT_CAP) stderr += chunk.toString();
        });
        channel.on('exit', (code: number | null) => {
          exitCode = typeof code === 'number' ? code : null;
        });
        // On timeout: SIGKILL to the remote process (OpenSSH >= 7.9 honours signal requests),
        // close the channel and answer at once; a grandchild holding the channel's pipes open
        // must not hold the deployment (it lives on remotely until it exits; ADR 0031).
        const timer = setTimeout(() => {
          timedOut = true;
          try {
            channel.signal('KILL');
            channel.close();
          } catch {
            // the channel is already gone
          }
          resolve({ exitCode: null, stdout, stderr, timedOut });
        }, timeoutMs);
        channel.on('close', () => {
          clearTimeout(timer);
          if (!timedOut) resolve({ exitCode, stdout, stderr, timedOut });
        });
      });
    });
  }

  end(): void {
    this.client.end();
  }
}
