import { createServer, Server, Socket } from 'node:net';
import { createSecureContext, TLSSocket } from 'node:tls';
import { createServer as createTlsServer } from 'node:tls';
import { createTestCa, TestCa } from '../testing/test-certificates';
import {
  commandEnvironment,
  DEFAULT_COMMAND_PATH,
  NodeDeploymentHost,
  parseEndpoint,
} from './node-deployment-host';

let ca: TestCa;
const servers: Server[] = [];
beforeAll(() => {
  ca = createTestCa();
});
afterAll(async () => {
  ca.cleanup();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

function listen(server: Server): Promise<number> {
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

describe('NodeDeploymentHost.run', () => {
  const host = new NodeDeploymentHost();

  it('runs argv without a shell: metacharacters reach the program literally', async () => {
    const result = await host.run(['echo', '$HOME', ';', 'id', '`whoami`']);
    expect(result).toEqual({ exitCode: 0, stdout: '$HOME ; id `whoami`\n', stderr: '', timedOut: false });
  });

  it('reports the exit code and stderr', async () => {
    const result = await host.run(['ls', '/does/not/exist']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/No such file/);
    expect(result.timedOut).toBe(false);
  });

  it('kills a command at its timeout', async () => {
    const started = Date.now();
    const result = await host.run(['sleep', '10'], { timeoutMs: 200 });
    expect(result).toMatchObject({ exitCode: null, timedOut: true });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a command does not see the process environment (SERVICE_* secrets), only PATH and the locale', async () => {
    const saved = { ...process.env };
    process.env.SERVICE_DATABASE_URL = 'postgres://certlane:secret@db/certlane';
    process.env.SERVICE_CONFIG_ENCRYPTION_KEY = 'c2VjcmV0';
    process.env.SERVICE_AGENT_API_KEY = 'clk_secret';
    process.env.LANG = 'C.UTF-8';
    try {
      // `env` is found through PATH and prints the environment it was given.
      const result = await host.run(['env']);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).not.toMatch(/SERVICE_|secret/);
      const names = result.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('=')[0])
        .sort();
      expect(names).toEqual(process.env.LC_ALL ? ['LANG', 'LC_ALL', 'PATH'] : ['LANG', 'PATH']);
    } finally {
      process.env = saved;
    }
  });

  it('a missing program: no exit code, the reason in stderr', async () => {
    const result = await host.run(['/nonexistent/reload-tool']);
    expect(result).toMatchObject({ exitCode: null, timedOut: false });
    expect(result.stderr).toMatch(/ENOENT/);
  });
});

describe(commandEnvironment.name, () => {
  it('keeps the absolute PATH entries and the locale, nothing else', () => {
    expect(
      commandEnvironment({
        PATH: '/opt/nginx/sbin::.:bin:/usr/bin',
        LC_ALL: 'C',
        HOME: '/root',
        SERVICE_X: 'y',
      }),
    ).toEqual({ PATH: '/opt/nginx/sbin:/usr/bin', LC_ALL: 'C' });
  });

  it('gives a safe default PATH when the process has none', () => {
    expect(commandEnvironment({})).toEqual({ PATH: DEFAULT_COMMAND_PATH });
    expect(commandEnvironment({ PATH: '.' })).toEqual({ PATH: DEFAULT_COMMAND_PATH });
  });
});

describe('NodeDeploymentHost.servedFingerprint', () => {
  const host = new NodeDeploymentHost({ connectTimeoutMs: 3_000 });

  it('reads the served leaf over TLS with SNI', async () => {
    const a = ca.issue('a.example.test');
    const b = ca.issue('b.example.test');
    const server = createTlsServer({
      cert: a.certificatePem,
      key: a.privateKeyPem,
      SNICallback: (name, callback) =>
        callback(
          null,
          createSecureContext(
            name === 'b.example.test'
              ? { cert: b.certificatePem, key: b.privateKeyPem }
              : { cert: a.certificatePem, key: a.privateKeyPem },
          ),
        ),
    });
    const port = await listen(server);
    expect(await host.servedFingerprint(`127.0.0.1:${port}`)).toBe(a.fingerprintSha256);
    expect(await host.servedFingerprint(`127.0.0.1:${port}`, 'b.example.test')).toBe(b.fingerprintSha256);
  });

  /** A minimal STARTTLS server speaking SMTP or IMAP before upgrading the socket. */
  async function starttlsServer(
    protocol: 'smtp' | 'imap',
    material: { certificatePem: string; privateKeyPem: string },
  ) {
    const context = createSecureContext({ cert: material.certificatePem, key: material.privateKeyPem });
    const server = createServer((socket: Socket) => {
      socket.write(
        protocol === 'smtp' ? '220 mail.test ESMTP\r\n' : '* OK [CAPABILITY IMAP4rev1 STARTTLS] ready\r\n',
      );
      socket.on('data', function onData(chunk) {
        const line = chunk.toString();
        if (protocol === 'smtp' && line.startsWith('EHLO'))
          socket.write('250-mail.test\r\n250-PIPELINING\r\n250 STARTTLS\r\n');
        const starttls = protocol === 'smtp' ? line.startsWith('STARTTLS') : /^a1 STARTTLS/.test(line);
        if (starttls) {
          socket.off('data', onData);
          socket.write(protocol === 'smtp' ? '220 go ahead\r\n' : 'a1 OK begin TLS\r\n', () => {
            new TLSSocket(socket, { isServer: true, secureContext: context }).on('error', () => undefined);
          });
        }
      });
      socket.on('error', () => undefined);
    });
    return listen(server);
  }

  it.each(['smtp', 'imap'] as const)('reads the leaf after %s STARTTLS', async (protocol) => {
    const material = ca.issue('mail.example.test');
    const port = await starttlsServer(protocol, material);
    expect(await host.servedFingerprint(`127.0.0.1:${port}`, undefined, { starttls: protocol })).toBe(
      material.fingerprintSha256,
    );
  });

  it('fails clearly on a refused connection and a server that never answers', async () => {
    const closed = await listen(createServer());
    await new Promise((resolve) => servers.pop()?.close(resolve));
    await expect(host.servedFingerprint(`127.0.0.1:${closed}`)).rejects.toThrow(/ECONNREFUSED/);
    const silent = await listen(createServer(() => undefined));
    const quick = new NodeDeploymentHost({ connectTimeoutMs: 300 });
    await expect(
      quick.servedFingerprint(`127.0.0.1:${silent}`, undefined, { starttls: 'smtp' }),
    ).rejects.toThrow(/within 300 ms/);
  });

  it('parses endpoints', () => {
    expect(parseEndpoint('example.test:443')).toEqual({ host: 'example.test', port: 443 });
    expect(parseEndpoint('[::1]:8443')).toEqual({ host: '::1', port: 8443 });
    expect(() => parseEndpoint('example.test')).toThrow(/host:port/);
    expect(() => parseEndpoint('example.test:70000')).toThrow(/host:port/);
  });
});
