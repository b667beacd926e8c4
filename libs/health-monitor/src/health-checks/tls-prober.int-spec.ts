import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AddressInfo } from 'node:net';
import * as tls from 'node:tls';
import { createServer, Server, TLSSocket } from 'node:tls';
import { CertlaneConfig } from '@certlane/platform';
import { badTimeCertificate } from './testing/bad-time-certificate';
import { TlsProber } from './tls-prober';

/** The prober against a real TLS server on loopback serving a certificate OpenSSL cannot date. */
describe(TlsProber.name, () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const { pem, keyPem } = badTimeCertificate();
    server = createServer({ cert: pem, key: keyPem }, (socket) => socket.end());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterAll(() => new Promise((resolve) => server?.close(resolve)));

  it('answers a failed probe, not a crash, for a served certificate whose time is "Bad time value"', async () => {
    const prober = new TlsProber({ networkAllowCidrs: ['127.0.0.0/8'] } as CertlaneConfig);
    const outcome = await prober.probe({ host: '127.0.0.1', port, sni: null });
    expect(outcome).toMatchObject({
      observation: {
        kind: 'error',
        error: 'the server presented a certificate whose validity time cannot be read (CN=bad-time.test)',
      },
      chain: [],
    });
    expect(outcome.handshake_ms).not.toBeNull();
  });
});

/** A self-signed RSA certificate from the openssl command line. */
function selfSigned(commonName: string): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'prober-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${commonName}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe(`${TlsProber.name} against legacy servers and resolvers`, () => {
  const prober = () => new TlsProber({ networkAllowCidrs: ['127.0.0.0/8'] } as CertlaneConfig);

  // Regression: Node's client floor (TLS 1.2) made a TLS 1.0 server an "alert protocol version"
  // error, so a scan never recorded the forgotten legacy endpoints discovery exists to find.
  it.each(['TLSv1', 'TLSv1.1'] as const)(
    'records the certificate a %s-only server presents',
    async (version) => {
      const { cert, key } = selfSigned('legacy.test');
      const server = createServer(
        { cert, key, minVersion: version, maxVersion: version, ciphers: 'DEFAULT:@SECLEVEL=0' },
        (socket) => socket.end(),
      );
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      try {
        const outcome = await prober().probe({
          host: '127.0.0.1',
          port: (server.address() as AddressInfo).port,
          sni: null,
        });
        expect(outcome.observation.kind).toBe('handshake');
        expect(outcome.tls_version).toBe(version);
        expect(outcome.chain[0].subject).toBe('CN=legacy.test');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );

  // Regression: only the handshake had a deadline; a resolver that never answered held the probe
  // (a monitor slot, a scan worker) for as long as getaddrinfo took.
  it('fails a probe whose name never resolves within its timeout', async () => {
    const slow = prober();
    slow.timeoutMs = 200;
    slow.lookupHost = () => new Promise(() => undefined);
    const started = Date.now();
    const outcome = await Promise.race([
      slow.probe({ host: 'never.test', port: 443, sni: null }),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2_000)),
    ]);
    expect(outcome).toMatchObject({
      observation: { kind: 'error', error: 'never.test did not resolve within 200 ms' },
    });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  // Regression: after the handshake the probe only end()ed its socket, which stays open until the
  // server closes its side; a server that never did kept one socket per probe for good.
  it('closes its socket after the handshake even when the server never closes its side', async () => {
    const { cert, key } = selfSigned('half-open.test');
    const accepted: TLSSocket[] = [];
    const server = createServer({ cert, key, allowHalfOpen: true }, (socket) => {
      accepted.push(socket);
      socket.on('data', () => undefined);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const dialled: TLSSocket[] = [];
    const watched = prober();
    watched.dial = ((options: tls.ConnectionOptions) => {
      const socket = tls.connect(options);
      dialled.push(socket);
      return socket;
    }) as typeof tls.connect;
    try {
      const outcome = await watched.probe({
        host: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        sni: null,
      });
      expect(outcome.observation.kind).toBe('handshake');
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The server's side of the connection is still open; the probe's must not be.
      expect(accepted.map((socket) => socket.destroyed)).toEqual([false]);
      expect(dialled.map((socket) => socket.destroyed)).toEqual([true]);
    } finally {
      accepted.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
