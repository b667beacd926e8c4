import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AddressInfo } from 'node:net';
import * as tls from 'node:tls';
import { createServer, Server, TLSSocket } from 'node:tls';
import {
  freePort,
  ServerProcess,
  waitUntil,
  writeDovecotSite,
  writePostfixSite,
} from '@certlane/connectors/testing';
import { CertlaneConfig } from '@certlane/platform';
import { createTlsFixture, TlsFixture } from '@certlane/testing';
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

// A real Postfix (SMTP, RFC 3207) and a real Dovecot (IMAP, RFC 3501 6.2.1) on loopback high ports,
// each serving the fixture's certificate only after STARTTLS (ADR 0057 amendment).
describe(`${TlsProber.name} with STARTTLS against a real Postfix and Dovecot`, () => {
  const prober = () => new TlsProber({ networkAllowCidrs: ['127.0.0.0/8'] } as CertlaneConfig);
  let fixture: TlsFixture;
  let dir: string;
  let smtpPort: number;
  let imapPort: number;
  const servers: ServerProcess[] = [];

  /** Puts the fixture's certificate and key where the site reads them. */
  const install = (site: { certPath: string; keyPath: string }) => {
    copyFileSync(fixture.certPath, site.certPath);
    copyFileSync(fixture.keyPath, site.keyPath);
    chmodSync(site.keyPath, 0o600);
  };
  const answersSmtp = async () =>
    (await prober().probe({ host: '127.0.0.1', port: smtpPort, sni: null, starttls: 'smtp' })).observation
      .kind === 'handshake';

  beforeAll(async () => {
    fixture = await createTlsFixture('mail.certlane.test');
    dir = mkdtempSync(join(tmpdir(), 'prober-starttls-'));
    // Postfix's daemons traverse the site's directory as the postfix user.
    chmodSync(dir, 0o755);
    [smtpPort, imapPort] = [await freePort(), await freePort()];
    const postfix = writePostfixSite(join(dir, 'postfix'), smtpPort, 'mail.certlane.test');
    const dovecot = writeDovecotSite(join(dir, 'dovecot'), imapPort);
    install(postfix);
    install(dovecot);
    servers.push(postfix.start(), dovecot.start());
    await waitUntil(answersSmtp, 'Postfix answering SMTP STARTTLS');
  }, 60_000);

  afterAll(async () => {
    for (const server of servers) await server.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads the certificate a mail server presents after SMTP STARTTLS', async () => {
    const outcome = await prober().probe({ host: '127.0.0.1', port: smtpPort, sni: null, starttls: 'smtp' });
    expect(outcome.observation).toMatchObject({ kind: 'handshake', fingerprint: fixture.fingerprint });
    expect(outcome.chain[0].subject).toContain('CN=mail.certlane.test');
    expect(outcome.tls_version).toMatch(/^TLSv1\.[23]$/);
  });

  it('reads the certificate an IMAP server presents after STARTTLS', async () => {
    let outcome = await prober().probe({ host: '127.0.0.1', port: imapPort, sni: null, starttls: 'imap' });
    await waitUntil(async () => {
      outcome = await prober().probe({ host: '127.0.0.1', port: imapPort, sni: null, starttls: 'imap' });
      return outcome.observation.kind === 'handshake';
    }, 'Dovecot answering IMAP STARTTLS');
    expect(outcome.observation).toMatchObject({ kind: 'handshake', fingerprint: fixture.fingerprint });
  });

  it('fails, naming the protocol, where the server does not speak it or TLS is tried at once', async () => {
    const imapToSmtp = await prober().probe({
      host: '127.0.0.1',
      port: smtpPort,
      sni: null,
      starttls: 'imap',
    });
    expect(imapToSmtp.observation).toEqual({ kind: 'error', error: 'IMAP greeting was not OK' });
    const smtpToImap = await prober().probe({
      host: '127.0.0.1',
      port: imapPort,
      sni: null,
      starttls: 'smtp',
    });
    expect(smtpToImap.observation).toEqual({ kind: 'error', error: 'SMTP greeting was not 220' });
    // Without STARTTLS the plain-text greeting is no TLS handshake.
    const direct = await prober().probe({ host: '127.0.0.1', port: smtpPort, sni: null });
    expect(direct.observation.kind).toBe('error');
  });

  it('gives up on a server that greets and then says nothing, within the probe timeout', async () => {
    const silent = await import('node:net').then(({ createServer }) =>
      // It reads (so it sees the probe close) but never answers the EHLO.
      createServer((socket) => socket.resume().write('220 mail.certlane.test ESMTP\r\n')),
    );
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const quick = prober();
    quick.timeoutMs = 300;
    try {
      const outcome = await quick.probe({
        host: '127.0.0.1',
        port: (silent.address() as AddressInfo).port,
        sni: null,
        starttls: 'smtp',
      });
      expect(outcome.observation).toEqual({ kind: 'error', error: 'no SMTP STARTTLS within 300 ms' });
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
