import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { CertlaneLogger, securityHeaderValues } from '@certlane/platform';
import { protocolLaneHarness } from '@certlane/testing';
import { ScepHttpRequest, ScepHttpResponse } from './scep-server';
import { scepFastLane } from './scep-fast-lane';

/**
 * The SCEP fast lane in front of a stand-in for Express on a real listener: what it answers as
 * ScepController would, and what it leaves to Express and Nest.
 */
describe('SCEP fast lane', () => {
  const lane = protocolLaneHarness<ScepHttpRequest, ScepHttpResponse, CertlaneLogger>(scepFastLane, () => ({
    status: 200,
    headers: { 'Content-Type': 'application/x-pki-message' },
    body: Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]),
  }));
  const { handled, observed, behind, logged } = lane;
  const send = lane.send;

  it('answers a PKIOperation POST as the controller: the binary answer, request id, security headers, metrics', async () => {
    const message = Buffer.from([0x30, 0x80, 0x00, 0xff, 0x0d, 0x0a]);
    const res = await send(
      '/scep/mdm?operation=PKIOperation',
      'POST',
      { 'content-type': 'application/x-pki-message', 'x-request-id': 'req-1' },
      message,
    );
    expect(res.status).toBe(200);
    expect([...res.body]).toEqual([0x30, 0x03, 0x02, 0x01, 0x00]);
    expect(res.headers['content-type']).toBe('application/x-pki-message');
    expect(res.headers['x-request-id']).toBe('req-1');
    for (const [name, value] of securityHeaderValues()) expect(res.headers[name.toLowerCase()]).toBe(value);
    expect(handled).toEqual([
      {
        method: 'POST',
        path: '/scep/mdm',
        query: 'operation=PKIOperation',
        body: message,
        clientCertificates: [],
      },
    ]);
    expect(behind).toEqual([]);
    expect(observed).toEqual(['POST /scep/*path 200']);
  });

  it.each([
    ['/scep?operation=GetCACaps', '/scep', 'operation=GetCACaps', '/scep'],
    ['/scep/?operation=GetCACert', '/scep/', 'operation=GetCACert', '/scep'],
    [
      '/scep-mtls/fleet?operation=GetCACert&message=x%2By',
      '/scep-mtls/fleet',
      'operation=GetCACert&message=x%2By',
      '/scep-mtls/*path',
    ],
    ['/scep-mtls', '/scep-mtls', '', '/scep-mtls'],
  ])('hands GET %s over with its raw query and labels it with its route', async (url, path, query, route) => {
    const res = await send(url);
    expect(res.status).toBe(200);
    expect(handled).toEqual([{ method: 'GET', path, query, clientCertificates: [] }]);
    expect(observed).toEqual([`GET ${route} 200`]);
  });

  it.each([
    ['another path', '/scepx?operation=GetCACaps', 'GET', {}],
    ['a HEAD', '/scep?operation=GetCACaps', 'HEAD', {}],
    ['an Origin header (CORS)', '/scep?operation=GetCACaps', 'GET', { origin: 'https://gui.example' }],
    ['a body labelled JSON', '/scep?operation=PKIOperation', 'POST', { 'content-type': 'application/json' }],
  ])('leaves %s to Express and Nest', async (_what, path, method, headers) => {
    const res = await send(path, method, headers, method === 'POST' ? '{}' : undefined);
    expect(res.status).toBe(299);
    expect(behind).toEqual([`${method} ${path}`]);
    expect(handled).toEqual([]);
  });

  it('refuses a body over the limit with the one error body (413), as the controller does', async () => {
    const res = await send(
      '/scep?operation=PKIOperation',
      'POST',
      { 'content-type': 'application/x-pki-message' },
      Buffer.alloc(256 * 1024 + 1, 0x41),
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body.toString())).toMatchObject({ code: ErrorCode.PayloadTooLarge });
    expect(handled).toEqual([]);
  });

  it('answers an error of the SCEP server with the error body, and logs an unexpected one', async () => {
    lane.next = async () => {
      throw new CertlaneError(ErrorCode.UpstreamTimeout, 'issuance did not answer');
    };
    const expected = await send('/scep?operation=PKIOperation', 'POST', {}, 'MIIB');
    expect(expected.status).toBe(504);
    expect(expected.headers['x-request-id']).toBeDefined();
    expect(logged).toEqual([]);
    lane.next = async () => {
      throw new Error('boom');
    };
    const unexpected = await send('/scep?operation=PKIOperation', 'POST', {}, 'MIIB');
    expect(unexpected.status).toBe(500);
    expect(unexpected.body.toString()).not.toContain('boom');
    expect(logged).toHaveLength(1);
  });
});
