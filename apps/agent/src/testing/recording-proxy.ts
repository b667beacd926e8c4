import { readFileSync } from 'node:fs';
import { createServer, request, Server } from 'node:https';
import { AddressInfo } from 'node:net';
import { createTlsFixture } from '@certlane/testing';

/** One request the agent sent through the proxy, and the answer it read. */
export interface Exchange {
  method: string;
  path: string;
  request: string;
  status: number;
  response: string;
}

export interface RecordingProxy {
  url: string;
  /** The proxy's own certificate: the agent's SERVICE_SERVER_CA_BUNDLE_PATH. */
  caPath: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

/**
 * A TLS-terminating recording proxy between the agent and the gateway: the agent trusts the proxy's
 * own certificate, the proxy trusts the gateway's (`upstreamCa`). Both directions of every exchange
 * are kept, to prove what crossed the wire.
 */
export async function startRecordingProxy(upstream: string, upstreamCa: string): Promise<RecordingProxy> {
  const tls = await createTlsFixture();
  const exchanges: Exchange[] = [];
  const server: Server = createServer(
    { cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath), minVersion: 'TLSv1.3' },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const forward = request(
          `${upstream}${req.url}`,
          {
            method: req.method,
            ca: upstreamCa,
            headers: { ...req.headers, host: new URL(upstream).host },
            agent: false,
          },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (c: Buffer) => parts.push(c));
            answer.on('end', () => {
              const text = Buffer.concat(parts);
              exchanges.push({
                method: req.method ?? '',
                path: req.url ?? '',
                request: body.toString('utf8'),
                status: answer.statusCode ?? 0,
                response: text.toString('utf8'),
              });
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(text);
            });
          },
        );
        forward.on('error', () => {
          res.writeHead(502);
          res.end();
        });
        forward.end(body);
      });
    },
  );
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}`,
    caPath: tls.certPath,
    exchanges,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
