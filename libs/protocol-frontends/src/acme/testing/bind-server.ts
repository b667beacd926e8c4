import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BindServer {
  port: number;
  /** `127.0.0.1:<port>`: what resolvers and RFC 2136 clients are given. */
  address: string;
  stop(): Promise<void>;
}

/**
 * A real authoritative DNS server (BIND 9, Debian's `bind9`) on loopback for one zone that
 * accepts RFC 2136 dynamic updates from 127.0.0.1: ACME clients write their `_acme-challenge`
 * TXT records into it, and the server's dns-01 validation reads them back. `records` are zone
 * file lines added at the start (CAA records, say).
 */
export async function startBind(zone: string, port: number, records: string[] = []): Promise<BindServer> {
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
zone "${zone}" { type master; file "${dir}/${zone}.zone"; allow-update { 127.0.0.1; }; };
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
