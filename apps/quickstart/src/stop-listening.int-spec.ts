import { createServer, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stopListening } from './stop-listening';

function get(port: number, path: string): Promise<string> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => done(`${res.statusCode} ${body}`));
    });
    req.on('error', (error: NodeJS.ErrnoException) => fail(error));
    req.end();
  });
}

describe('stopListening', () => {
  let server: Server;
  let port: number;
  let release: () => void;

  beforeEach(async () => {
    const slowAnswered = new Promise<void>((done) => (release = done));
    server = createServer((req, res) => {
      if (req.url === '/slow') void slowAnswered.then(() => res.end('slow done'));
      else res.end('fast');
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(() => server.closeAllConnections());

  it('answers the request in flight, refuses new connections, and resolves once it is answered', async () => {
    // An idle keep-alive connection too: it must not hold the stop up.
    await expect(get(port, '/fast')).resolves.toBe('200 fast');
    const slow = get(port, '/slow');
    await new Promise((done) => setTimeout(done, 50));

    let stopped = false;
    const stopping = stopListening(server, 10_000).then(() => (stopped = true));
    await expect(get(port, '/fast')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(stopped).toBe(false);

    release();
    await expect(slow).resolves.toBe('200 slow done');
    await stopping;
    expect(server.listening).toBe(false);
  });

  it('cuts a connection still open after the timeout', async () => {
    const slow = get(port, '/slow').catch((error: NodeJS.ErrnoException) => error.code);
    await new Promise((done) => setTimeout(done, 50));
    const started = Date.now();
    await stopListening(server, 200);
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(slow).resolves.toBe('ECONNRESET');
  });
});
