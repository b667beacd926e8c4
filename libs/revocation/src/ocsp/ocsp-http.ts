import { ocspResponseHeaders } from '@certlane/pki';
import type { OcspAnswer } from './ocsp.service';

/** The cache key of an RFC 5019 GET: the raw (still encoded) path after /ocsp/<issuer>/. */
export const ocspGetKey = (encodedPath: string): string => `G${encodedPath}`;

/** The cache key of an RFC 6960 POST: the DER body, one character per byte. */
export const ocspPostKey = (body: Buffer): string => `P${body.toString('latin1')}`;

const UNCACHED = Object.freeze(ocspResponseHeaders(Buffer.alloc(0), undefined, false));

interface Memo {
  second: number;
  get: Readonly<Record<string, string>>;
  post: Readonly<Record<string, string>>;
}
/** Headers of a signed response, per response and per second (max-age counts down in seconds). */
const memo = new WeakMap<Buffer, Memo>();

/**
 * The HTTP headers of an OCSP answer: the RFC 5019 cache headers of a signed response for GET
 * (`cacheable`), `no-cache` for POST and for unsigned errors. The result must not be modified.
 */
export function ocspHeaders(
  answer: OcspAnswer,
  cacheable: boolean,
  now = Date.now(),
): Readonly<Record<string, string>> {
  if (!answer.times) return UNCACHED;
  const second = Math.floor(now / 1000);
  let entry = memo.get(answer.der);
  if (!entry || entry.second !== second) {
    const get = ocspResponseHeaders(answer.der, answer.times, true, new Date(now));
    entry = { second, get, post: { ...get, 'cache-control': 'no-cache' } };
    memo.set(answer.der, entry);
  }
  return cacheable ? entry.get : entry.post;
}
