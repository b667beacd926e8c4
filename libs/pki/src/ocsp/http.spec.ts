import { crlResponseHeaders, ocspCacheHeaders, ocspResponseHeaders } from './http';

const thisUpdate = new Date('2026-01-01T00:00:00Z');
const nextUpdate = new Date('2026-01-01T01:00:00Z');
const times = { producedAt: thisUpdate, thisUpdate, nextUpdate };
const now = new Date('2026-01-01T00:10:00Z');
const der = Buffer.from([0x30, 0x00]);

describe('relying-party response headers', () => {
  it('gives a signed OCSP response to a GET the RFC 5019 cache headers', () => {
    expect(ocspResponseHeaders(der, times, true, now)).toEqual(ocspCacheHeaders(der, times, now));
    expect(ocspResponseHeaders(der, times, true, now)['cache-control']).toBe(
      'max-age=3000, public, no-transform, must-revalidate',
    );
  });

  it('marks a POST answer and an unsigned error no-cache', () => {
    expect(ocspResponseHeaders(der, times, false, now)).toEqual({
      ...ocspCacheHeaders(der, times, now),
      'cache-control': 'no-cache',
    });
    expect(ocspResponseHeaders(der, undefined, true, now)).toEqual({
      'content-type': 'application/ocsp-response',
      'cache-control': 'no-cache',
    });
  });

  it('serves a CRL as application/pkix-crl, cacheable until its nextUpdate', () => {
    expect(crlResponseHeaders(der, { thisUpdate, nextUpdate }, now)).toEqual({
      ...ocspCacheHeaders(der, times, now),
      'content-type': 'application/pkix-crl',
    });
  });
});
