import { once } from 'node:events';
import { createServer, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { CLOUD_ANSWER_MAX_BYTES, cloudJson } from './cloud-http';

/** A cloud API stand-in whose answer the test writes. */
describe(cloudJson.name, () => {
  let server: Server;
  let url: string;
  let respond: (res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      respond(res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  it('answers the parsed JSON of an answer within the cap', async () => {
    respond = (res) => res.end(JSON.stringify({ SecretList: [] }));
    await expect(cloudJson(url, {}, 'AWS ListSecrets')).resolves.toEqual({ SecretList: [] });
  });

  // Regression: the whole answer was buffered before its size was checked, so an answer that
  // never ends was read until memory ran out (or the call's timeout).
  it('stops reading as soon as the answer passes the cap, even while the server keeps sending', async () => {
    respond = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(Buffer.alloc(CLOUD_ANSWER_MAX_BYTES + 1, 0x20)); // and the answer never ends
    };
    await expect(cloudJson(url, {}, 'AWS ListSecrets')).rejects.toThrow(
      `AWS ListSecrets: the answer is larger than ${CLOUD_ANSWER_MAX_BYTES} bytes`,
    );
  });

  it('counts the cap in bytes, not characters', async () => {
    const threeBytes = '€';
    const text = JSON.stringify(threeBytes.repeat(CLOUD_ANSWER_MAX_BYTES / 2));
    expect(text.length).toBeLessThan(CLOUD_ANSWER_MAX_BYTES);
    respond = (res) => res.end(text);
    await expect(cloudJson(url, {}, 'GCP secrets.list')).rejects.toThrow('the answer is larger than');
  });
});
