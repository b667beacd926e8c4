import { CertlaneLogger, clientIpReader, securityHeaderValues } from '@certlane/platform';
import { protocolLaneHarness } from '@certlane/testing';
import { acmeFastLane } from './acme-fast-lane';
import { AcmeHttpRequest, AcmeHttpResponse } from './acme-http';

const JOSE = { 'content-type': 'application/jose+json' };
const jws = JSON.stringify({ protected: 'e30', payload: '', signature: 'c2ln' });

/** The ACME fast lane with the given trusted proxies, in front of a stand-in for Express. */
function harness(trustedProxies: string[]) {
  return protocolLaneHarness<AcmeHttpRequest, AcmeHttpResponse, CertlaneLogger>(
    (handle, observe, logger) => acmeFastLane(handle, observe, logger, clientIpReader(trustedProxies)),
    () => ({
      status: 201,
      headers: {
        'Content-Type': 'application/json',
        Location: 'https://ca.example/acme/order/o1',
        Link: ['<https://ca.example/acme/directory>;rel="index"', '<https://ca.example/acme/x>;rel="up"'],
      },
      body: { status: 'pending' },
    }),
  );
}

/**
 * The ACME fast lane on a real listener: what it reads and answers as AcmeController would, and
 * what it leaves to Express and Nest.
 */
describe('ACME fast lane', () => {
  const lane = harness([]);
  const { handled, observed, behind } = lane;

  it('answers a JWS POST as the controller: the parsed body, origin, client address, headers, metrics', async () => {
    const res = await lane.send(
      '/acme/new-order',
      'POST',
      { ...JOSE, host: 'ca.example', 'x-request-id': 'req-1', 'x-forwarded-for': '203.0.113.7' },
      jws,
    );
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body.toString())).toEqual({ status: 'pending' });
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers.location).toBe('https://ca.example/acme/order/o1');
    expect(res.headers.link).toBe(
      '<https://ca.example/acme/directory>;rel="index", <https://ca.example/acme/x>;rel="up"',
    );
    expect(res.headers['x-request-id']).toBe('req-1');
    for (const [name, value] of securityHeaderValues()) expect(res.headers[name.toLowerCase()]).toBe(value);
    // No proxy is trusted: the TCP peer, whatever X-Forwarded-For says.
    expect(handled).toEqual([
      {
        method: 'POST',
        path: '/acme/new-order',
        origin: 'https://ca.example',
        body: JSON.parse(jws),
        contentType: 'application/jose+json',
        clientIp: '127.0.0.1',
      },
    ]);
    expect(behind).toEqual([]);
    expect(observed).toEqual(['POST /acme/*path 201']);
  });

  it('passes a GET without a body and a PEM answer as text', async () => {
    lane.next = async () => ({
      status: 200,
      headers: { 'Content-Type': 'application/pem-certificate-chain' },
      body: '-----BEGIN CERTIFICATE-----\n',
    });
    const res = await lane.send('/acme/profile/p1/directory', 'GET', { host: 'ca.example' });
    expect(res.body.toString()).toBe('-----BEGIN CERTIFICATE-----\n');
    expect(handled).toEqual([
      {
        method: 'GET',
        path: '/acme/profile/p1/directory',
        origin: 'https://ca.example',
        clientIp: '127.0.0.1',
      },
    ]);
  });

  it.each([
    ['not JSON', 'not json', 'application/jose+json'],
    [
      'over 64 KiB (as the controller: absent, for the JWS checks to answer malformed)',
      'A'.repeat(64 * 1024 + 1),
      'application/jose+json',
    ],
    ['empty', '', 'application/jose+json'],
  ])('reads a body that is %s as absent', async (_what, body, contentType) => {
    const res = await lane.send('/acme/new-account', 'POST', { 'content-type': contentType }, body);
    expect(res.status).toBe(201);
    expect(handled).toHaveLength(1);
    expect(handled[0].body).toBeUndefined();
    expect(Object.keys(handled[0])).toContain('body');
  });

  it('answers an answer without a body with none', async () => {
    lane.next = async () => ({ status: 204, headers: { 'Replay-Nonce': 'n1' } });
    const res = await lane.send('/acme/new-nonce');
    expect([res.status, res.headers['replay-nonce'], res.body.length]).toEqual([204, 'n1', 0]);
  });

  it.each([
    ['another path', '/acmex/new-order', 'POST', JOSE],
    ['the API', '/api/v1/acme/accounts', 'GET', {}],
    ['a HEAD (newNonce)', '/acme/new-nonce', 'HEAD', {}],
    ['a query string', '/acme/directory?x=1', 'GET', {}],
    ['an Origin header (CORS)', '/acme/directory', 'GET', { origin: 'https://gui.example' }],
  ])('leaves %s to Express and Nest', async (_what, path, method, headers) => {
    const res = await lane.send(path, method, headers, method === 'POST' ? jws : undefined);
    expect(res.status).toBe(299);
    expect(behind).toEqual([`${method} ${path}`]);
    expect(handled).toEqual([]);
  });
});

describe('ACME fast lane behind a trusted proxy', () => {
  const lane = harness(['loopback']);

  it('takes the client address from X-Forwarded-For through the trusted hops, as request.ip does', async () => {
    await lane.send(
      '/acme/new-order',
      'POST',
      { ...JOSE, 'x-forwarded-for': '198.51.100.9, 203.0.113.7' },
      jws,
    );
    await lane.send('/acme/new-order', 'POST', { ...JOSE, 'x-forwarded-for': '::ffff:203.0.113.8' }, jws);
    await lane.send('/acme/new-order', 'POST', JOSE, jws);
    expect(lane.handled.map((r) => r.clientIp)).toEqual(['203.0.113.7', '203.0.113.8', '127.0.0.1']);
  });
});
