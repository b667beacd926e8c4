import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { ocspCacheHeaders } from '@certlane/pki';
import { installInFront, securityHeaderValues } from '@certlane/platform';
import { plainHttpRequest } from '@certlane/testing';
import type { OcspAnswer } from '../ocsp/ocsp.service';
import type { Request } from 'express';
import { OCSP_GET_ROUTE, OCSP_POST_ROUTE, ocspFastLane } from './ocsp-fast-lane';
import { ocspGetKey, ocspHeaders, ocspPostKey } from '../ocsp/ocsp-http';
import { readRawBody } from '@certlane/platform';

const times = {
  producedAt: new Date(Math.floor(Date.now() / 1000) * 1000),
  thisUpdate: new Date(Math.floor(Date.now() / 1000) * 1000),
  nextUpdate: new Date(Math.floor(Date.now() / 1000) * 1000 + 3600_000),
};
const answer: OcspAnswer = { der: Buffer.from([0x30, 0x03, 0x0a, 0x01, 0x00]), times };

describe('OCSP fast lane', () => {
  let server: Server;
  let base: string;
  const cachedKeys = new Map<string, OcspAnswer>();
  const observed: unknown[][] = [];
  const behind: string[] = [];
  const behindBodies: string[] = [];
  const cachedBody = Buffer.from([0x30, 0x02, 0x30, 0x00]);

  beforeAll(async () => {
    cachedKeys.set(`iss-a ${ocspGetKey('MEMw%2FQT')}`, answer);
    cachedKeys.set(`iss-a ${ocspPostKey(cachedBody)}`, answer);
    server = createServer((request, response) => {
      behind.push(`${request.method} ${request.url}`);
      void readRawBody(request as Request, 1000).then((body) => {
        behindBodies.push(body.toString('hex'));
        response.statusCode = 299;
        response.end('express');
      });
    });
    installInFront(
      server,
      ocspFastLane({ cached: (issuerId, key) => cachedKeys.get(`${issuerId} ${key}`) }, (...args) =>
        observed.push(args),
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const send = (path: string, method = 'GET', headers: Record<string, string> = {}, body?: Buffer) =>
    plainHttpRequest(`${base}${path}`, method, headers, body);

  it('answers a cached GET itself, with the security, request id and RFC 5019 cache headers', async () => {
    const before = behind.length;
    const response = await send('/ocsp/iss-a/MEMw%2FQT');
    expect(behind.length).toBe(before);
    expect(response.status).toBe(200);
    expect(response.body.equals(answer.der)).toBe(true);
    expect(response.headers['content-length']).toBe(String(answer.der.length));
    const expected = ocspCacheHeaders(answer.der, times);
    expect(response.headers['content-type']).toBe('application/ocsp-response');
    expect(response.headers.etag).toBe(expected.etag);
    expect(response.headers['last-modified']).toBe(expected['last-modified']);
    expect(response.headers.expires).toBe(expected.expires);
    expect(response.headers['cache-control']).toMatch(/^max-age=\d+, public, no-transform, must-revalidate$/);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const security = securityHeaderValues();
    expect(security.map(([name]) => name.toLowerCase())).toEqual(
      expect.arrayContaining([
        'content-security-policy',
        'strict-transport-security',
        'x-content-type-options',
      ]),
    );
    for (const [name, value] of security) expect(response.headers[name.toLowerCase()]).toBe(value);
    expect(observed.at(-1)?.slice(0, 3)).toEqual(['GET', OCSP_GET_ROUTE, 200]);
  });

  it('echoes a well-formed inbound X-Request-Id and replaces a malformed one', async () => {
    expect(
      (await send('/ocsp/iss-a/MEMw%2FQT', 'GET', { 'x-request-id': 'proxy-1.2:3' })).headers['x-request-id'],
    ).toBe('proxy-1.2:3');
    expect(
      (await send('/ocsp/iss-a/MEMw%2FQT', 'GET', { 'x-request-id': 'bad id' })).headers['x-request-id'],
    ).not.toBe('bad id');
  });

  it('answers a cached POST by its body bytes, with no-cache, and passes a miss on with its body', async () => {
    const before = behind.length;
    const ocspRequest = { 'content-type': 'application/ocsp-request' };
    const hit = await send('/ocsp/iss-a', 'POST', ocspRequest, cachedBody);
    expect(behind.length).toBe(before);
    expect(hit.status).toBe(200);
    expect(hit.body.equals(answer.der)).toBe(true);
    expect(hit.headers['cache-control']).toBe('no-cache');
    expect(hit.headers.etag).toBe(ocspCacheHeaders(answer.der, times).etag);
    expect(hit.headers['content-security-policy']).toBeDefined();
    expect(observed.at(-1)?.slice(0, 3)).toEqual(['POST', OCSP_POST_ROUTE, 200]);

    const other = Buffer.from([0x30, 0x01, 0x05]);
    const miss = await send('/ocsp/iss-a', 'POST', ocspRequest, other);
    expect(miss.status).toBe(299);
    expect(behindBodies.at(-1)).toBe(other.toString('hex'));
    // Another media type or issuer: not read by the lane, the listener behind reads the stream.
    for (const [path, headers] of [
      ['/ocsp/iss-a', { 'content-type': 'application/json' }],
      ['/ocsp/iss-b', ocspRequest],
    ] as const) {
      expect((await send(path, 'POST', headers, cachedBody)).status).toBe(299);
      expect(behindBodies.at(-1)).toBe(cachedBody.toString('hex'));
    }
  });

  it('leaves everything else to the listener behind it', async () => {
    for (const [method, path] of [
      ['GET', '/ocsp/iss-a/other'], // not cached
      ['GET', '/ocsp/iss-b/MEMw%2FQT'], // other issuer
      ['GET', '/ocsp/iss-a/MEMw%2FQT?x=1'], // query string
      ['GET', '/ocsp/iss%2Da/MEMw%2FQT'], // an issuer id that needs decoding
      ['GET', '/ocsp/iss-a'],
      ['POST', '/ocsp/iss-a/MEMw%2FQT'],
      ['HEAD', '/ocsp/iss-a/MEMw%2FQT'],
      ['GET', '/crl/iss-a.crl'],
    ]) {
      const response = await send(path, method);
      expect([method, path, response.status]).toEqual([method, path, 299]);
      expect(behind.at(-1)).toBe(`${method} ${path}`);
    }
  });
});

describe('OCSP HTTP helpers', () => {
  it('keys GET paths and POST bodies apart, one character per body byte', () => {
    expect(ocspGetKey('MEM%2F')).toBe('GMEM%2F');
    expect(ocspPostKey(Buffer.from([0x30, 0xff, 0x00]))).toBe('P0\u00ff\u0000');
    expect(ocspPostKey(Buffer.from('GMEM'))).not.toBe(ocspGetKey('MEM'));
  });

  it('gives cache headers for GET, no-cache for POST and for unsigned answers, memoised per second', () => {
    const now = times.thisUpdate.getTime() + 10_000;
    const get = ocspHeaders(answer, true, now);
    expect(get).toEqual(ocspCacheHeaders(answer.der, times, new Date(now)));
    expect(get['cache-control']).toBe('max-age=3590, public, no-transform, must-revalidate');
    expect(ocspHeaders(answer, true, now + 999)).toBe(get);
    expect(ocspHeaders(answer, true, now + 1000)['cache-control']).toBe(
      'max-age=3589, public, no-transform, must-revalidate',
    );
    expect(ocspHeaders(answer, false, now)['cache-control']).toBe('no-cache');
    expect(ocspHeaders(answer, false, now).etag).toBe(get.etag);
    expect(ocspHeaders({ der: Buffer.from([1]) }, true, now)).toEqual({
      'content-type': 'application/ocsp-response',
      'cache-control': 'no-cache',
    });
  });
});
