import { freePort, startTestSystem, TestSystem } from '@certlane/testing';
import { Http01Responder, TestAcmeClient } from './testing/acme-test-client';

const urn = (type: string) => `urn:ietf:params:acme:error:${type}`;

/**
 * The per-client-address and failed-validation limits (RFC 8555 6.6; ADR 0060) over the wire.
 * The server trusts 127.0.0.1 as a proxy, so each test is its own client address through
 * X-Forwarded-For, the way a deployment behind a load balancer sees its clients.
 */
describe('ACME rate limits per client address and on failed validations', () => {
  let system: TestSystem;
  let responder: Http01Responder;
  let directory: string;
  let address = 10;

  beforeAll(async () => {
    const http01Port = await freePort();
    system = await startTestSystem('acmelimits', ['issuance', 'protocol-frontends'], {
      SERVICE_ACME_HTTP01_PORT: String(http01Port),
      SERVICE_TRUSTED_PROXIES: '127.0.0.1',
      SERVICE_ACME_NEW_ACCOUNTS_PER_IP_PER_HOUR: '2',
      SERVICE_ACME_NEW_ORDERS_PER_IP_PER_HOUR: '3',
      SERVICE_ACME_FAILED_VALIDATIONS_PER_HOUR: '2',
    });
    responder = await Http01Responder.start(http01Port);
    directory = `${system.services['protocol-frontends'].url}/acme/directory`;
  }, 120_000);

  afterAll(async () => {
    await responder?.stop();
    await system?.stop();
  });

  /** A client at a client address of its own (`ip`, or a fresh one). */
  async function client(ip = `198.51.100.${address++}`): Promise<TestAcmeClient> {
    const c = await TestAcmeClient.create(directory, system.ca);
    c.forwardedFor = ip;
    return c;
  }

  it('RFC 8555 6.6: past the new accounts of one client address, newAccount is rateLimited with Retry-After', async () => {
    const ip = '198.51.100.200';
    expect((await (await client(ip)).register()).status).toBe(201);
    expect((await (await client(ip)).register()).status).toBe(201);
    const refused = await (await client(ip)).register();
    expect(refused.status).toBe(429);
    expect(refused.json.type).toBe(urn('rateLimited'));
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
    // Another address is not affected.
    expect((await (await client()).register()).status).toBe(201);
  });

  it('RFC 8555 6.6: past the new orders of one client address, across its accounts, newOrder is rateLimited', async () => {
    const ip = '198.51.100.201';
    const [a, b] = [await client(ip), await client(ip)];
    await a.register();
    await b.register();
    const order = (c: TestAcmeClient, name: string) =>
      c.post(directory.replace('directory', 'new-order'), { identifiers: [{ type: 'dns', value: name }] });
    expect((await order(a, 'one.localhost')).status).toBe(201);
    expect((await order(b, 'two.localhost')).status).toBe(201);
    expect((await order(a, 'three.localhost')).status).toBe(201);
    const refused = await order(b, 'four.localhost');
    expect([refused.status, refused.json.type]).toEqual([429, urn('rateLimited')]);
    expect(refused.headers['retry-after']).toBeDefined();
  });

  it('RFC 8555 6.6: after repeated failed validations of a name, the account waits to order it again', async () => {
    const c = await client();
    await c.register();
    const newOrder = directory.replace('directory', 'new-order');
    for (let attempt = 0; attempt < 2; attempt++) {
      const order = await c.post(newOrder, { identifiers: [{ type: 'dns', value: 'failing.localhost' }] });
      expect(order.status).toBe(201);
      const authzUrl = order.json.authorizations[0];
      const challenge = (await c.post(authzUrl, '')).json.challenges.find(
        (ch: { type: string }) => ch.type === 'http-01',
      );
      responder.answers.set(challenge.token, 'not-the-key-authorization');
      await c.post(challenge.url, {});
      let status = 'pending';
      for (let i = 0; i < 100 && status === 'pending'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await c.post(authzUrl, '')).json.status;
      }
      expect(status).toBe('invalid');
    }
    const refused = await c.post(newOrder, { identifiers: [{ type: 'dns', value: 'failing.localhost' }] });
    expect([refused.status, refused.json.type]).toEqual([429, urn('rateLimited')]);
    expect(refused.json.detail).toContain('failing.localhost');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
    // Other names of the same account are not held back.
    expect((await c.post(newOrder, { identifiers: [{ type: 'dns', value: 'fine.localhost' }] })).status).toBe(
      201,
    );
  }, 60_000);
});
