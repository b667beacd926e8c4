import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, TLSSocket } from 'node:tls';
import { presentedTls } from './presented-tls';

/** presentedTls on real TLS 1.3 connections: kept per connection, never shared between two. */
describe('presentedTls (ADR 0061)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'presented-tls-'));
  const pair = (name: string) => {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'].concat(
        ['-subj', `/CN=${name}`, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.pem`)],
      ),
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, `${name}.key`)), cert: readFileSync(join(dir, `${name}.pem`)) };
  };

  it('gives the same chain and tls-exporter for every request of one connection, another for another connection', async () => {
    const server = pair('server');
    const clients = [pair('client-a'), pair('client-b')];
    const accepted: TLSSocket[] = [];
    const arrived: (() => void)[] = [];
    const listener = createServer({ ...server, requestCert: true, rejectUnauthorized: false }, (socket) => {
      accepted.push(socket);
      arrived.shift()?.();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as AddressInfo;
    const open = async (client: { key: Buffer; cert: Buffer }) => {
      const serverSide = new Promise<void>((resolve) => arrived.push(resolve));
      const socket = await new Promise<TLSSocket>((resolve, reject) => {
        const opened = connect({ port, host: '127.0.0.1', ...client, rejectUnauthorized: false }, () =>
          resolve(opened),
        );
        opened.on('error', reject);
      });
      await serverSide;
      return socket;
    };
    const connections = [await open(clients[0]), await open(clients[1])];
    try {
      const first = presentedTls(accepted[0])!;
      const again = presentedTls(accepted[0])!;
      const other = presentedTls(accepted[1])!;
      expect(accepted[0].getProtocol()).toBe('TLSv1.3');
      expect(first.client_certificates).toEqual([
        new X509Certificate(clients[0].cert).raw.toString('base64'),
      ]);
      expect(first.tls_exporter).toEqual(expect.any(String));
      expect(again).toEqual(first);
      expect(other.client_certificates).toEqual([
        new X509Certificate(clients[1].cert).raw.toString('base64'),
      ]);
      expect(other.tls_exporter).not.toEqual(first.tls_exporter);
      // A caller changing its copy changes nothing for the next request.
      again.client_certificates.push('tampered');
      expect(presentedTls(accepted[0])).toEqual(first);
    } finally {
      [...connections, ...accepted].forEach((socket) => socket.destroy());
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
