import { once } from 'node:events';
import { AddressInfo } from 'node:net';
import { createServer, Server } from 'node:tls';
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
