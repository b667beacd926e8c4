import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BindServer {
  port: number;
  /** `127.0.0.1:<port>`: what resolvers and RFC 2136 clients are given. */
  address: string;
  stop(): Promise<void>;
}

export interface BindOptions {
  /** When given, updates must be signed with this TSIG key (RFC 8945); else any from 127.0.0.1. */
  tsigKey?: { name: string; algorithm: string; secret: string };
}

/**
 * A real authoritative DNS server (BIND 9, Debian's `bind9`) on loopback for one zone that
 * accepts RFC 2136 dynamic updates from 127.0.0.1 (or only those signed with `tsigKey`): ACME
 * clients write their `_acme-challenge` TXT records into it, and dns-01 validation reads them
 * back. `records` are zone file lines added at the start (CAA records, say).
 */
export async function startBind(
  zone: string,
  port: number,
  records: string[] = [],
  options: BindOptions = {},
): Promise<BindServer> {
  const key = options.tsigKey;
  const dir = mkdtempSync(join(tmpdir(), 'certlane-bind-'));
  writeFileSync(
    join(dir, `${zone}.zone`),
    [
      '$TTL 1',
      `@ IN SOA ns.${zone}. admin.${zone}. 1 60 60 600 1`,
      `@ IN NS ns.${zone}.`,
      'ns IN A 127.0.0.1',
      ...records,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'named.conf'),
    `options {
  directory "${dir}";
  pid-file "${dir}/named.pid";
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  allow-query { any; };
  dnssec-validation no;
};
controls { };
${key ? `key "${key.name}" { algorithm ${key.algorithm}; secret "${key.secret}"; };\n` : ''}zone "${zone}" { type master; file "${dir}/${zone}.zone"; allow-update { ${key ? `key "${key.name}"` : '127.0.0.1'}; }; };
`,
  );
  const child: ChildProcess = spawn('/usr/sbin/named', ['-g', '-c', join(dir, 'named.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`named did not start:\n${log}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('running')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`named exited with ${code}:\n${log}`));
    });
  });
  // "running" can come before the TCP listener accepts (RFC 2136 clients that use TCP).
  await tcpAccepts(port, 10_000, () => log);
  return {
    port,
    address: `127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function tcpAccepts(port: number, timeoutMs: number, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (accepted) return;
    if (Date.now() > deadline) throw new Error(`named does not accept TCP on ${port}:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
