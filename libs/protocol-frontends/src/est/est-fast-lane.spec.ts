import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { CertlaneLogger, securityHeaderValues } from '@certlane/platform';
import { protocolLaneHarness } from '@certlane/testing';
import { EstHttpRequest, EstHttpResponse } from './est-server';
import { estFastLane } from './est-fast-lane';

/**
 * The EST fast lane in front of a stand-in for Express on a real listener: what it answers as
 * EstController would, and what it leaves to Express and Nest.
 */
describe('EST fast lane', () => {
  const lane = protocolLaneHarness<EstHttpRequest, EstHttpResponse, CertlaneLogger>(estFastLane, () => ({
    status: 200,
    headers: {
      'Content-Type': 'application/pkcs7-mime; smime-type=certs-only',
      'Content-Transfer-Encoding': 'base64',
    },
    body: 'MIIB\r\n',
  }));
  const { handled, observed, behind, logged } = lane;
  /** The answer with its body as text, as the EST assertions read it. */
  const send = async (path: string, method = 'GET', headers: Record<string, string> = {}, body?: string) => {
    const res = await lane.send(path, method, headers, body);
    return { ...res, body: res.body.toString() };
  };

  it('answers a simpleenroll as the controller: the EST answer, request id, security headers, metrics', async () => {
    const res = await send(
      '/.well-known/est/bench/simpleenroll',
      'POST',
      { 'content-type': 'application/pkcs10', authorization: 'Basic dTpw', 'x-request-id': 'req-1' },
      'MIIBcsr',
    );
    expect(res.status).toBe(200);
    expect(res.body).toBe('MIIB\r\n');
    expect(res.headers['content-type']).toBe('application/pkcs7-mime; smime-type=certs-only');
    expect(res.headers['content-transfer-encoding']).toBe('base64');
    expect(res.headers['x-request-id']).toBe('req-1');
    for (const [name, value] of securityHeaderValues()) expect(res.headers[name.toLowerCase()]).toBe(value);
    expect(handled).toEqual([
      {
        method: 'POST',
        path: '/.well-known/est/bench/simpleenroll',
        authorization: 'Basic dTpw',
        body: 'MIIBcsr',
      },
    ]);
    expect(behind).toEqual([]);
    expect(observed).toEqual(['POST /.well-known/est/*path 200']);
  });

  it('labels the mutual-TLS paths with their route and passes GETs without a body', async () => {
    const res = await send('/.well-known/est-mtls/fleet/cacerts');
    expect(res.status).toBe(200);
    expect(handled[0]).toEqual({ method: 'GET', path: '/.well-known/est-mtls/fleet/cacerts' });
    expect(observed).toEqual(['GET /.well-known/est-mtls/*path 200']);
  });

  it.each([
    ['another path', '/.well-known/estx/simpleenroll', 'POST', {}],
    ['a HEAD', '/.well-known/est/cacerts', 'HEAD', {}],
    ['a query string', '/.well-known/est/cacerts?x=1', 'GET', {}],
    ['an Origin header (CORS)', '/.well-known/est/cacerts', 'GET', { origin: 'https://gui.example' }],
    ['a body labelled JSON', '/.well-known/est/simpleenroll', 'POST', { 'content-type': 'application/json' }],
  ])('leaves %s to Express and Nest', async (_what, path, method, headers) => {
    const res = await send(path, method, headers, method === 'POST' ? '{}' : undefined);
    expect(res.status).toBe(299);
    expect(behind).toEqual([`${method} ${path}`]);
    expect(handled).toEqual([]);
  });

  it('refuses a body over the limit with the one error body (413), as the controller does', async () => {
    const res = await send(
      '/.well-known/est/simpleenroll',
      'POST',
      { 'content-type': 'application/pkcs10' },
      'A'.repeat(256 * 1024 + 1),
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: ErrorCode.PayloadTooLarge });
    expect(handled).toEqual([]);
  });

  it('answers an error of the EST server with the error body, and logs an unexpected one', async () => {
    lane.next = async () => {
      throw new CertlaneError(ErrorCode.UpstreamTimeout, 'issuance did not answer');
    };
    const expected = await send('/.well-known/est/simpleenroll', 'POST', {}, 'MIIB');
    expect(expected.status).toBe(504);
    expect(expected.headers['x-request-id']).toBeDefined();
    expect(logged).toEqual([]);
    lane.next = async () => {
      throw new Error('boom');
    };
    const unexpected = await send('/.well-known/est/simpleenroll', 'POST', {}, 'MIIB');
    expect(unexpected.status).toBe(500);
    expect(unexpected.body).not.toContain('boom');
    expect(logged).toHaveLength(1);
  });
});
