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
