import { CertId } from '@certlane/pki';
import { canonicalSerial } from '../revocations/revoked-event';

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
  /** After this instant the response is re-signed (well before nextUpdate). */
  refreshAt: Date;
}

/** How long a signed OCSP response is valid. */
export const OCSP_RESPONSE_VALIDITY_MS = 60 * 60_000;
/** By default a response is re-signed half-way (SERVICE_OCSP_REFRESH_BEFORE). */
export const OCSP_REFRESH_BEFORE_MS = 30 * 60_000;
export const OCSP_CACHE_MAX_ENTRIES = 100_000;

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

const keyOf = (issuerId: string, certIdDer: Buffer) => `${issuerId} ${certIdDer.toString('base64')}`;
const serialKey = (issuerId: string, serial: string) => `${issuerId} ${canonicalSerial(serial)}`;

/**
 * Pre-signed OCSP responses, one per (issuer, CertID as sent: hash algorithm and serial),
 * bounded in size (least recently stored goes first). A lookup returns only a response that is
 * not due for refresh; `forSerial` finds every cached variant of a serial to re-sign it at once
 * when it is revoked.
 */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  private readonly bySerial = new Map<string, Set<string>>();
  /** The exact request (GET path or POST body) a cached response answers -> the entry's key. */
  private readonly byRequest = new Map<string, string>();

  constructor(private readonly maxEntries = OCSP_CACHE_MAX_ENTRIES) {}

  get size(): number {
    return this.entries.size;
  }

  get(issuerId: string, certIdDer: Buffer, now: Date): CachedResponse | undefined {
    const entry = this.entries.get(keyOf(issuerId, certIdDer));
    return entry && entry.refreshAt.getTime() > now.getTime() ? entry : undefined;
  }

  put(entry: CachedResponse): void {
    const key = keyOf(entry.issuerId, entry.certId.der);
    this.entries.delete(key);
    this.entries.set(key, entry);
    const sKey = serialKey(entry.issuerId, entry.certId.serialNumber);
    let keys = this.bySerial.get(sKey);
    if (!keys) this.bySerial.set(sKey, (keys = new Set()));
    keys.add(key);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.remove(oldest);
    }
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

  /** Remembers that this exact request asks about `certIdDer` (a one-CertID request without nonce). */
  remember(issuerId: string, request: string, certIdDer: Buffer): void {
    const requestKey = `${issuerId} ${request}`;
    this.byRequest.delete(requestKey);
    this.byRequest.set(requestKey, keyOf(issuerId, certIdDer));
    while (this.byRequest.size > this.maxEntries) {
      this.byRequest.delete(this.byRequest.keys().next().value as string);
    }
  }

  /** Every cached response about one serial of one issuer. */
  forSerial(issuerId: string, serial: string): CachedResponse[] {
    const keys = this.bySerial.get(serialKey(issuerId, serial));
    return keys ? [...keys].flatMap((key) => this.entries.get(key) ?? []) : [];
  }

  /** Responses whose refresh time has come (the sweep re-signs them before they expire). */
  due(now: Date): CachedResponse[] {
    return [...this.entries.values()].filter((e) => e.refreshAt.getTime() <= now.getTime());
  }

  /** Drops everything about an issuer, or about one of its CAs (its responder changed). */
  dropIssuer(issuerId: string, caId?: string): void {
    for (const [key, entry] of this.entries) {
      if (entry.issuerId === issuerId && (caId === undefined || entry.caId === caId)) this.remove(key);
    }
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    const sKey = serialKey(entry.issuerId, entry.certId.serialNumber);
    const keys = this.bySerial.get(sKey);
    keys?.delete(key);
    if (keys?.size === 0) this.bySerial.delete(sKey);
  }
}
