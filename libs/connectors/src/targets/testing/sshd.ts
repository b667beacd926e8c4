// A real OpenSSH server for the SSH connector tests: /usr/sbin/sshd in the foreground (-D -e) on
// a free loopback port, with its own host key, config, pid file and authorized_keys in a
// temporary directory. Tests run as root (CI containers), so the client key logs in as root.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ServerProcess, startServer, waitUntil } from './servers';

export interface TestSshd {
  dir: string;
  port: number;
  /** `SHA256:<base64>` of the server's host key, per `ssh-keygen -lf` (not our code). */
  hostKeyFingerprint: string;
  /** An OpenSSH private key whose public half is authorised for root. */
  clientPrivateKey: string;
  output(): string;
  stop(): Promise<void>;
}

function keygen(path: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path], { stdio: 'ignore' });
}

export async function startTestSshd(options: { passwordAuthentication?: boolean } = {}): Promise<TestSshd> {
  const dir = mkdtempSync(join(tmpdir(), 'certlane-sshd-'));
  // The privilege separation directory sshd insists on.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'client_key'));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')));
  const listing = execFileSync('ssh-keygen', [
    '-l',
    '-E',
    'sha256',
    '-f',
    join(dir, 'host_key.pub'),
  ]).toString();
  const hostKeyFingerprint = /SHA256:[A-Za-z0-9+/]+/.exec(listing)?.[0];
  if (!hostKeyFingerprint) throw new Error(`ssh-keygen printed no fingerprint: ${listing}`);
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `ListenAddress 127.0.0.1`,
      `Port ${port}`,
      `HostKey ${dir}/host_key`,
      `PidFile ${dir}/sshd.pid`,
      `AuthorizedKeysFile ${dir}/authorized_keys`,
      `PermitRootLogin prohibit-password`,
      `PubkeyAuthentication yes`,
      `PasswordAuthentication ${options.passwordAuthentication ? 'yes' : 'no'}`,
      `KbdInteractiveAuthentication no`,
      `UsePAM no`,
      `StrictModes no`,
      `Subsystem sftp internal-sftp`,
      `LogLevel VERBOSE`,
      '',
    ].join('\n'),
  );
  let server: ServerProcess | undefined;
  try {
    server = startServer('/usr/sbin/sshd', ['-D', '-e', '-f', config]);
    const started = server;
    await waitUntil(
      () => /Server listening on 127\.0\.0\.1 port/.test(started.output()),
      `sshd listening (output: ${started.output()})`,
    );
  } catch (error) {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const running = server;
  return {
    dir,
    port,
    hostKeyFingerprint,
    clientPrivateKey: readFileSync(join(dir, 'client_key'), 'utf8'),
    output: () => running.output(),
    async stop() {
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A throwaway local account with a known password (for password authentication), removed by
 * `remove()`. Its home is `home`, which it owns.
 */
export function createThrowawayUser(home: string): { name: string; password: string; remove(): void } {
  const name = `cl-ssh-${Math.random().toString(36).slice(2, 8)}`;
  const password = `pw-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  execFileSync('useradd', ['-M', '-d', home, '-s', '/bin/sh', name], { stdio: 'ignore' });
  try {
    execFileSync('chpasswd', [], { input: `${name}:${password}\n`, stdio: ['pipe', 'ignore', 'ignore'] });
    execFileSync('chown', [name, home]);
  } catch (error) {
    execFileSync('userdel', [name], { stdio: 'ignore' });
    throw error;
  }
  return {
    name,
    password,
    remove: () => execFileSync('userdel', [name], { stdio: 'ignore' }),
  };
}
