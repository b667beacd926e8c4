import { createHash } from 'node:crypto';

/**
 * HTTP caching headers for an OCSP response (RFC 5019 6.2): a response is valid until its
 * nextUpdate, so caches may keep it that long (less a margin for clock skew).
 */
export function ocspCacheHeaders(
  response: Uint8Array,
  times: { producedAt: Date; thisUpdate: Date; nextUpdate?: Date },
  now = new Date(),
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/ocsp-response',
    'last-modified': times.thisUpdate.toUTCString(),
    etag: `"${createHash('sha1').update(response).digest('hex')}"`,
  };
  if (times.nextUpdate) {
    const maxAge = Math.max(0, Math.floor((times.nextUpdate.getTime() - now.getTime()) / 1000));
    headers.expires = times.nextUpdate.toUTCString();
    headers['cache-control'] = `max-age=${maxAge}, public, no-transform, must-revalidate`;
  } else {
    headers['cache-control'] = 'no-cache';
  }
  return headers;
}

/**
 * The HTTP headers of an OCSP answer as the relying-party endpoints send it: the RFC 5019 cache
 * headers of a signed response for GET (`cacheable`), the same with `no-cache` for POST (RFC 5019
 * 6.2 covers GET only), and `no-cache` for an unsigned error response (no `times`).
 */
export function ocspResponseHeaders(
  response: Uint8Array,
  times: { producedAt: Date; thisUpdate: Date; nextUpdate?: Date } | undefined,
  cacheable: boolean,
  now = new Date(),
): Record<string, string> {
  if (!times) return { 'content-type': 'application/ocsp-response', 'cache-control': 'no-cache' };
  const headers = ocspCacheHeaders(response, times, now);
  if (!cacheable) headers['cache-control'] = 'no-cache';
  return headers;
}

/** The HTTP headers of a DER CRL: its type and the cache headers of its thisUpdate and nextUpdate. */
export function crlResponseHeaders(
  crl: Uint8Array,
  times: { thisUpdate: Date; nextUpdate: Date },
  now = new Date(),
): Record<string, string> {
  return {
    ...ocspCacheHeaders(crl, { producedAt: times.thisUpdate, ...times }, now),
    'content-type': 'application/pkix-crl',
  };
}

/** The file name of an issuer's CRL in `/crl/<file>`: `<issuer_id>.crl` (the issuing CA's CRL). */
export const ISSUER_CRL_FILE = /^(.{1,128})\.crl$/;
/** The file name of one CA's CRL in `/crl/<issuer_id>/<file>`: `<ca_id>.crl` (ADR 0023). */
export const CA_CRL_FILE = /^(ca-[a-z0-9-]{1,80})\.crl$/;
