import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A TLS server on `port` that negotiates acme-tls/1 but shows an ordinary self-signed certificate
 * for `name`, not the RFC 8737 validation certificate: a tls-alpn-01 attempt against it is
 * unauthorized.
 */
export class OrdinaryAlpnResponder {
  private constructor(
    private readonly server: Server,
    private readonly dir: string,
  ) {}

  static async start(port: number, name: string): Promise<OrdinaryAlpnResponder> {
    const dir = mkdtempSync(join(tmpdir(), 'certlane-alpn-'));
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=DNS:${name}`,
    ]);
    const server = createServer({
      key: readFileSync(join(dir, 'key.pem')),
      cert: readFileSync(join(dir, 'cert.pem')),
      ALPNProtocols: ['acme-tls/1'],
    });
    server.on('secureConnection', (socket) => socket.end());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    return new OrdinaryAlpnResponder(server, dir);
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server.close(resolve));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
