import { CertId } from '@certlane/pki';
import { canonicalSerial } from '../serials/canonical-serial';
import { OCSP_RESPONSE_VALIDITY_MS } from '../publication/ocsp-validity';
import { ByteBoundedLru } from './byte-bounded-lru';

/** A signed response kept for GETs and nonce-less POSTs. */
export interface CachedResponse {
  issuerId: string;
  /** The CA of the issuer the CertID names (its responder signed this). */
  caId: string;
  certId: CertId;
  der: Buffer;
  producedAt: Date;
  thisUpdate: Date;
  nextUpdate: Date;
  /**
   * After this instant the response is re-signed (well before nextUpdate); when that fails for an
   * outage, it is served a little longer and tried again (`postpone`).
   */
  refreshAt: Date;
}

/** By default a response is re-signed half-way (SERVICE_OCSP_REFRESH_BEFORE). */
export const OCSP_REFRESH_BEFORE_MS = 30 * 60_000;
/** Default of SERVICE_OCSP_CACHE_MAX_BYTES: what the cache may hold, responses and request index. */
export const OCSP_CACHE_MAX_BYTES = 32 * 1024 * 1024;
/** The request index's share of the byte bound (the responses have the rest). */
export const OCSP_REQUEST_INDEX_SHARE = 0.25;
/**
 * A request is remembered only up to this length: a one-CertID request without nonce is about
 * 80 to 150 bytes of DER, so a longer one is padded (e.g. with singleRequestExtensions) and is
 * answered, but parsed each time.
 */
export const MAX_REMEMBERED_REQUEST_CHARS = 1024;
/**
 * What an entry costs beyond its DER and key bytes: the entry and its Dates, the Buffer objects,
 * the backing store, the map slots and the per-serial index. Measured on Node 20 as resident
 * memory per entry over 100,000 entries (about 2.6 KB with a 900-byte response), allocator slack
 * included.
 */
const RESPONSE_OVERHEAD_BYTES = 1536;
/** What a request index entry costs beyond its two strings (the map slot and its record), measured alike. */
const REQUEST_OVERHEAD_BYTES = 256;

/** The times of a response signed now, re-signed `refreshBeforeMs` before its nextUpdate. */
export function responseTimes(
  now: Date,
  refreshBeforeMs = OCSP_REFRESH_BEFORE_MS,
  validityMs = OCSP_RESPONSE_VALIDITY_MS,
) {
  const thisUpdate = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const nextUpdate = new Date(thisUpdate.getTime() + validityMs);
  return {
    producedAt: thisUpdate,
    thisUpdate,
    nextUpdate,
    refreshAt: new Date(Math.max(thisUpdate.getTime(), nextUpdate.getTime() - refreshBeforeMs)),
  };
}

/**
 * The response and its CertID (with the hashes inside it) copied into one backing store of their
 * own. Small Buffers (the decoded request, every piece of a signed response) are slices of Node's
 * shared 8 KiB pool, so keeping one alive keeps its whole slab: a cached response would cost some
 * 8 KiB instead of its own size.
 */
function ownedCopy(response: CachedResponse): CachedResponse {
  const { der: source, certId } = response;
  const store = Buffer.allocUnsafeSlow(source.length + certId.der.length);
  source.copy(store);
  certId.der.copy(store, source.length);
  const der = store.subarray(0, source.length);
  const certIdDer = store.subarray(source.length);
  const inside = (part: Buffer) => {
    const offset = part.byteOffset - certId.der.byteOffset;
    return part.buffer === certId.der.buffer && offset >= 0 && offset + part.length <= certIdDer.length
      ? certIdDer.subarray(offset, offset + part.length)
      : part; // not a slice of the request: the issuer's own hashes, shared by every CertID
  };
  return {
    ...response,
    der,
    certId: {
      ...certId,
      der: certIdDer,
      issuerNameHash: inside(certId.issuerNameHash),
      issuerKeyHash: inside(certId.issuerKeyHash),
    },
  };
}

const keyOf = (issuerId: string, certIdDer: Buffer) => `${issuerId} ${certIdDer.toString('base64')}`;
const serialKey = (issuerId: string, serial: string) => `${issuerId} ${canonicalSerial(serial)}`;

/**
 * Pre-signed OCSP responses, one per (issuer, CertID as sent: hash algorithm and serial), bounded
 * in bytes (SERVICE_OCSP_CACHE_MAX_BYTES, ADR 0039): the least recently used go first. A lookup
 * returns only a response that is not due for refresh; `forSerial` finds every cached variant of
 * a serial to re-sign it at once when it is revoked (or to drop them when that fails). Stored responses and CertIDs are copied out
 * of Node's Buffer pool, so what the bound counts is what they hold.
 */
export class ResponseCache {
  private readonly entries: ByteBoundedLru<string, CachedResponse>;
  private readonly bySerial = new Map<string, Set<string>>();
  /** The exact request (GET path or POST body) a cached response answers -> the entry's key. */
  private readonly byRequest: ByteBoundedLru<string, string>;

  constructor(readonly maxBytes = OCSP_CACHE_MAX_BYTES) {
    const requestBytes = Math.floor(maxBytes * OCSP_REQUEST_INDEX_SHARE);
    this.entries = new ByteBoundedLru(maxBytes - requestBytes, (key, entry) => this.unindex(key, entry));
    this.byRequest = new ByteBoundedLru(requestBytes);
  }

  get size(): number {
    return this.entries.size;
  }

  /** What the responses and the request index hold, as counted against maxBytes. */
  get bytes(): number {
    return this.entries.bytes + this.byRequest.bytes;
  }

  get(issuerId: string, certIdDer: Buffer, now: Date): CachedResponse | undefined {
    const entry = this.entries.get(keyOf(issuerId, certIdDer));
    return entry && entry.refreshAt.getTime() > now.getTime() ? entry : undefined;
  }

  /** Whether a response about this CertID is held (due for refresh or not). */
  has(issuerId: string, certIdDer: Buffer): boolean {
    return this.entries.peek(keyOf(issuerId, certIdDer)) !== undefined;
  }

  /** The response held about this CertID, due for refresh or not (not counted as a use). */
  peek(issuerId: string, certIdDer: Buffer): CachedResponse | undefined {
    return this.entries.peek(keyOf(issuerId, certIdDer));
  }

  /**
   * Serves a held response (by `get` and `lookup`) until `until`, when it is due for refresh again:
   * re-signing it failed, and it is still valid (see staleAnswerUntil).
   */
  postpone(response: CachedResponse, until: Date): void {
    const entry = this.entries.peek(keyOf(response.issuerId, response.certId.der));
    if (entry) entry.refreshAt = until;
  }

  /** Stores a copy of the entry (see ownedCopy) and returns it. */
  put(response: CachedResponse): CachedResponse {
    const entry = ownedCopy(response);
    const key = keyOf(entry.issuerId, entry.certId.der);
    const bytes = RESPONSE_OVERHEAD_BYTES + key.length + entry.der.length + entry.certId.der.length;
    if (!this.entries.set(key, entry, bytes)) {
      this.unindex(key, entry);
      return entry;
    }
    const sKey = serialKey(entry.issuerId, entry.certId.serialNumber);
    let keys = this.bySerial.get(sKey);
    if (!keys) this.bySerial.set(sKey, (keys = new Set()));
    keys.add(key);
    return entry;
  }

  /**
   * The cached response for an exact request seen before (issuer and GET path, or issuer and POST
   * body), without parsing it: the entry that `get` would return for the request's CertID.
   */
  lookup(issuerId: string, request: string, now: Date): CachedResponse | undefined {
    const requestKey = `${issuerId} ${request}`;
    const key = this.byRequest.get(requestKey);
    if (key === undefined) return undefined;
    const entry = this.entries.get(key);
    if (!entry) {
      this.byRequest.delete(requestKey);
      return undefined;
    }
    return entry.refreshAt.getTime() > now.getTime() ? entry : undefined;
  }

  /**
   * Remembers that this exact request asks about `certIdDer` (a one-CertID request without nonce
   * whose response is cached); a request longer than MAX_REMEMBERED_REQUEST_CHARS is not.
   */
  remember(issuerId: string, request: string, certIdDer: Buffer): void {
    if (request.length > MAX_REMEMBERED_REQUEST_CHARS) return;
    const requestKey = `${issuerId} ${request}`;
    const key = keyOf(issuerId, certIdDer);
    this.byRequest.set(requestKey, key, REQUEST_OVERHEAD_BYTES + requestKey.length + key.length);
  }

  /** Every cached response about one serial of one issuer. */
  forSerial(issuerId: string, serial: string): CachedResponse[] {
    const keys = this.bySerial.get(serialKey(issuerId, serial));
    return keys ? [...keys].flatMap((key) => this.entries.peek(key) ?? []) : [];
  }

  /** Responses whose refresh time has come (the sweep re-signs them before they expire). */
  due(now: Date): CachedResponse[] {
    const due: CachedResponse[] = [];
    for (const [, entry] of this.entries) if (entry.refreshAt.getTime() <= now.getTime()) due.push(entry);
    return due;
  }

  /** Makes every held response due for refresh (`get` and `lookup` no longer return it) at `now`. */
  expireAll(now: Date): void {
    for (const [, entry] of this.entries)
      if (entry.refreshAt.getTime() > now.getTime()) entry.refreshAt = now;
  }

  /** Drops every response about one serial of one issuer. */
  dropSerial(issuerId: string, serial: string): void {
    for (const key of [...(this.bySerial.get(serialKey(issuerId, serial)) ?? [])]) this.remove(key);
  }

  /** Drops everything about an issuer, or about one of its CAs (its responder changed). */
  dropIssuer(issuerId: string, caId?: string): void {
    for (const [key, entry] of [...this.entries]) {
      if (entry.issuerId === issuerId && (caId === undefined || entry.caId === caId)) this.remove(key);
    }
  }

  private remove(key: string): void {
    const entry = this.entries.delete(key);
    if (entry) this.unindex(key, entry);
  }

  private unindex(key: string, entry: CachedResponse): void {
    const sKey = serialKey(entry.issuerId, entry.certId.serialNumber);
    const keys = this.bySerial.get(sKey);
    keys?.delete(key);
    if (keys?.size === 0) this.bySerial.delete(sKey);
  }
}
