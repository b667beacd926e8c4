import { isIP, Socket } from 'node:net';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import { Injectable } from '@nestjs/common';
import { readEndpoint } from '@certlane/connectors';
import { TargetCheck } from '@certlane/contracts';

/** How long each step of the probe may take. */
export const PROBE_TIMEOUT_MS = 3000;

/**
 * The reachability part of a target's connection test: a TCP connect to the endpoint, then a TLS
 * handshake (SNI = the host when it is a name; the chain is not validated, the question is only
 * whether TLS is served and which leaf). Real connector checks arrive with the connectors.
 */
@Injectable()
export class ConnectionProbe {
  async probe(endpoint: string): Promise<TargetCheck[]> {
    const parsed = readEndpoint(endpoint);
    if (!parsed) return [{ name: 'reachability', ok: false, message: 'endpoint is not host:port' }];
    const tcp = await this.tcp(parsed.host, parsed.port);
    if (!tcp.ok) {
      return [tcp, { name: 'tls', ok: false, message: 'skipped: the endpoint is not reachable' }];
    }
    return [tcp, await this.tls(parsed.host, parsed.port)];
  }

  private tcp(host: string, port: number): Promise<TargetCheck> {
    return new Promise((resolve) => {
      const socket = new Socket();
      const done = (check: TargetCheck) => {
        socket.destroy();
        resolve(check);
      };
      socket.setTimeout(PROBE_TIMEOUT_MS, () =>
        done({ name: 'reachability', ok: false, message: 'TCP connect timed out' }),
      );
      socket.once('error', (error: NodeJS.ErrnoException) =>
        done({ name: 'reachability', ok: false, message: `TCP connect failed (${error.code ?? 'error'})` }),
      );
      socket.connect(port, host, () =>
        done({ name: 'reachability', ok: true, message: `TCP connect to port ${port} succeeded` }),
      );
    });
  }

  private tls(host: string, port: number): Promise<TargetCheck> {
    return new Promise((resolve) => {
      const socket: TLSSocket = tlsConnect({
        host,
        port,
        servername: isIP(host) ? undefined : host,
        rejectUnauthorized: false,
        timeout: PROBE_TIMEOUT_MS,
      });
      const done = (check: TargetCheck) => {
        socket.destroy();
        resolve(check);
      };
      socket.once('timeout', () => done({ name: 'tls', ok: false, message: 'TLS handshake timed out' }));
      socket.once('error', (error: NodeJS.ErrnoException) =>
        done({ name: 'tls', ok: false, message: `TLS handshake failed (${error.code ?? 'error'})` }),
      );
      socket.once('secureConnect', () => {
        const leaf = socket.getPeerCertificate();
        const fingerprint = leaf?.fingerprint256
          ? leaf.fingerprint256.replace(/:/g, '').toLowerCase()
          : 'none';
        done({
          name: 'tls',
          ok: true,
          message: `TLS ${socket.getProtocol() ?? ''} served; leaf SHA-256 fingerprint ${fingerprint}`,
        });
      });
    });
  }
}
