import { createServer, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { GuardedHttp } from './outbound-http';
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
