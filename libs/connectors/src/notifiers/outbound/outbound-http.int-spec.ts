import { createServer, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { GuardedHttp, httpOutcome } from './outbound-http';
import { networkList } from './reserved-addresses';

/**
 * The guarded client's connections: kept alive between sends when asked (one pool per
 * destination and checked address), and a kept-alive connection the receiver dropped is replaced
 * by a fresh one for that send.
 */
describe('GuardedHttp connections', () => {
  let server: Server;
  let url: string;
  const connections = new Set<Socket>();
  /** Requests answered per connection; with `dropSecond`, a connection's second request is cut off. */
  const served = new Map<Socket, number>();
  let dropSecond = false;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const count = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, count);
      req.resume();
      if (dropSecond && count === 2) {
        req.socket.destroy();
        return;
      }
      req.on('end', () => res.writeHead(204).end());
    });
    server.on('connection', (socket: Socket) => connections.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    server.closeAllConnections();
    connections.clear();
    served.clear();
    dropSecond = false;
  });

  const post = (http: GuardedHttp) =>
    http.send({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{}' });

  it('sends over one kept-alive connection', async () => {
    const http = new GuardedHttp({ allowed: networkList(['127.0.0.1']), keepAlive: true });
    for (let n = 0; n < 5; n++) expect((await post(http)).status).toBe(204);
    http.close();
    expect(connections.size).toBe(1);
  });

  it('opens a connection per send without keep-alive', async () => {
    const http = new GuardedHttp({ allowed: networkList(['127.0.0.1']) });
    for (let n = 0; n < 3; n++) expect((await post(http)).status).toBe(204);
    expect(connections.size).toBe(3);
  });

  it('resends once on a fresh connection when the kept-alive one is dropped before answering', async () => {
    dropSecond = true;
    const http = new GuardedHttp({ allowed: networkList(['127.0.0.1']), keepAlive: true });
    expect((await post(http)).status).toBe(204);
    expect((await post(http)).status).toBe(204);
    http.close();
    expect(connections.size).toBe(2);
    expect([...served.values()].sort()).toEqual([1, 2]);
  });

  it('refuses an address that is not allow-listed before pooling anything', async () => {
    const http = new GuardedHttp({ allowed: networkList([]), keepAlive: true });
    await expect(post(http)).rejects.toThrow(/reserved address/);
    http.close();
    expect(connections.size).toBe(0);
  });
});

describe('GuardedHttp deadline', () => {
  it('ends an answer that trickles in, byte after byte within the idle timeout, at the deadline', async () => {
    const drip = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 100);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => drip.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(drip.address() as AddressInfo).port}/hook`;
    const http = new GuardedHttp({ allowed: networkList(['127.0.0.1']), timeoutMs: 500 });
    const started = Date.now();
    try {
      await expect(http.send({ method: 'POST', url, headers: {}, body: '{}' })).rejects.toThrow(
        /no complete answer from 127\.0\.0\.1:\d+ within 500 ms/,
      );
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      drip.closeAllConnections();
      await new Promise((resolve) => drip.close(resolve));
    }
  });
});

describe('httpOutcome', () => {
  const now = new Date('2026-11-30T12:00:00Z');
  const answer = (status: number, headers: Record<string, string> = {}) => ({ status, headers, body: 'no' });

  it('is final for a refusal of the request itself (4xx), to retry for 408, 425, 429 and 5xx', () => {
    for (const status of [400, 401, 403, 404, 410, 413, 422])
      expect(httpOutcome(answer(status), now)).toMatchObject({ ok: false, final: true });
    for (const status of [408, 425, 429, 500, 502, 503])
      expect(httpOutcome(answer(status), now)).not.toHaveProperty('final');
    expect(httpOutcome(answer(202), now)).toEqual({ ok: true });
  });

  it('carries the Retry-After of a 429 or 503', () => {
    expect(httpOutcome(answer(429, { 'retry-after': '120' }), now)).toMatchObject({ retryAfterSeconds: 120 });
  });
});
