import {
  createOcspRequest,
  createSelfSignedCa,
  decodeOcspGetPath,
  encodeOcspGetPath,
  IssuerHashes,
  parseOcspRequest,
  SoftwareKeyProvider,
} from '@certlane/pki';
import {
  CachedResponse,
  MAX_REMEMBERED_REQUEST_CHARS,
  OCSP_REQUEST_INDEX_SHARE,
  ResponseCache,
  responseTimes,
} from './response-cache';

describe(ResponseCache.name, () => {
  let hashes: IssuerHashes;
  const now = new Date('2026-03-01T10:00:00.400Z');

  beforeAll(async () => {
    const { signer } = await new SoftwareKeyProvider().generate({ algorithm: 'ECDSA', curve: 'P-256' });
    const root = await createSelfSignedCa({
      subject: [['CN', 'cache test']],
      signer,
      notBefore: new Date(now.getTime() - 1000),
      notAfter: new Date(now.getTime() + 86_400_000),
    });
    hashes = new IssuerHashes(root.der);
  });

  const entry = (
    issuerId: string,
    serial: string,
    at: Date,
    hash: 'sha1' | 'sha256' = 'sha1',
  ): CachedResponse => ({
    issuerId,
    caId: 'ca-test',
    certId: hashes.certId(serial, hash),
    der: Buffer.from(`${issuerId}/${serial}/${hash}/${at.toISOString()}`.padEnd(900, '.')),
    ...responseTimes(at),
  });

  /** The bytes one entry of `entry` counts against the bound. */
  const entryBytes = () => {
    const probe = new ResponseCache();
    probe.put(entry('iss-a', '01', now));
    return probe.bytes;
  };
  /** A cache whose responses' share of the bound holds `n` entries and a half. */
  const cacheHolding = (n: number) =>
    new ResponseCache(Math.ceil(((n + 0.5) * entryBytes()) / (1 - OCSP_REQUEST_INDEX_SHARE)));

  it('times a response: whole seconds, one hour valid, refreshed after half an hour', () => {
    const times = responseTimes(now);
    expect(times.thisUpdate.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(times.producedAt).toEqual(times.thisUpdate);
    expect(times.nextUpdate.toISOString()).toBe('2026-03-01T11:00:00.000Z');
    expect(times.refreshAt.toISOString()).toBe('2026-03-01T10:30:00.000Z');
  });

  it('re-signs a response the configured lead time before its nextUpdate, never before it was signed', () => {
    expect(responseTimes(now, 5 * 60_000).refreshAt.toISOString()).toBe('2026-03-01T10:55:00.000Z');
    expect(responseTimes(now, 3_600_000 - 3000).refreshAt.toISOString()).toBe('2026-03-01T10:00:03.000Z');
    expect(responseTimes(now, 2 * 3_600_000).refreshAt.toISOString()).toBe('2026-03-01T10:00:00.000Z');
  });

  it('serves a response past its refresh time again until a postponed time, by CertID and by request (re-signing failed)', () => {
    const cache = new ResponseCache();
    const e = cache.put(entry('iss-a', '4a11', now));
    cache.remember('iss-a', 'Gpath', e.certId.der);
    const late = new Date('2026-03-01T10:31:00Z');
    expect(cache.get('iss-a', e.certId.der, late)).toBeUndefined();
    expect(cache.peek('iss-a', e.certId.der)).toBe(e);
    cache.postpone(e, new Date('2026-03-01T10:31:30Z'));
    expect(cache.get('iss-a', e.certId.der, late)).toBe(e);
    expect(cache.lookup('iss-a', 'Gpath', late)).toBe(e);
    expect(cache.due(late)).toEqual([]);
    expect(cache.due(new Date('2026-03-01T10:31:30Z'))).toEqual([e]);
  });

  it('makes every response due at once (the replica missed revocations), and drops those of one serial', () => {
    const cache = new ResponseCache();
    const a = cache.put(entry('iss-a', '4a11', now));
    const b = cache.put(entry('iss-a', '4a11', now, 'sha256'));
    const c = cache.put(entry('iss-a', '4b22', now));
    cache.expireAll(now);
    expect(cache.get('iss-a', a.certId.der, now)).toBeUndefined();
    expect(new Set(cache.due(now))).toEqual(new Set([a, b, c]));
    cache.dropSerial('iss-a', '004A11');
    expect(cache.forSerial('iss-a', '4a11')).toEqual([]);
    expect(cache.peek('iss-a', b.certId.der)).toBeUndefined();
    expect(cache.peek('iss-a', c.certId.der)).toBe(c);
  });

  it('returns a response until its refresh time, per issuer and CertID', () => {
    const cache = new ResponseCache();
    const e = cache.put(entry('iss-a', '4a11', now));
    expect(cache.get('iss-a', e.certId.der, now)).toBe(e);
    expect(cache.get('iss-a', e.certId.der, new Date('2026-03-01T10:29:59Z'))).toBe(e);
    expect(cache.get('iss-a', e.certId.der, new Date('2026-03-01T10:30:00Z'))).toBeUndefined();
    expect(cache.get('iss-b', e.certId.der, now)).toBeUndefined();
    expect(cache.get('iss-a', hashes.certId('4a11', 'sha256').der, now)).toBeUndefined();
    expect(cache.due(new Date('2026-03-01T10:30:00Z'))).toEqual([e]);
    expect(cache.due(now)).toEqual([]);
  });

  it('finds every cached variant of a serial, leading zeros or not, and replaces on put', () => {
    const cache = new ResponseCache();
    const sha1 = cache.put(entry('iss-a', '4a11', now));
    const sha256 = cache.put(entry('iss-a', '4a11', now, 'sha256'));
    cache.put(entry('iss-a', '4b22', now));
    expect(cache.forSerial('iss-a', '4a11')).toEqual([sha1, sha256]);
    expect(cache.forSerial('iss-a', '004a11')).toEqual([sha1, sha256]);
    const later = cache.put(entry('iss-a', '4a11', new Date('2026-03-01T10:05:00Z')));
    expect(cache.size).toBe(3);
    expect(cache.forSerial('iss-a', '4a11')).toEqual([later, sha256]);
  });

  it('evicts the least recently used beyond its byte bound and drops an issuer', () => {
    const cache = cacheHolding(2);
    const a = cache.put(entry('iss-a', '01', now));
    const b = cache.put(entry('iss-b', '02', now));
    expect(cache.get('iss-a', a.certId.der, now)).toBe(a);
    const c = cache.put(entry('iss-a', '03', now));
    expect(cache.size).toBe(2);
    expect(cache.get('iss-b', b.certId.der, now)).toBeUndefined();
    expect(cache.forSerial('iss-b', '02')).toEqual([]);
    cache.dropIssuer('iss-a');
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
    expect(cache.get('iss-a', c.certId.der, now)).toBeUndefined();
  });

  it('holds no more bytes than its bound, however many distinct CertIDs are stored', () => {
    const cache = new ResponseCache(1024 * 1024);
    for (let i = 1; i <= 5000; i++) cache.put(entry('iss-a', `4${i.toString(16).padStart(33, '0')}`, now));
    expect(cache.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(cache.size).toBeGreaterThan(100);
    expect(cache.size).toBeLessThan(5000);
    expect(cache.forSerial('iss-a', `4${(5000).toString(16).padStart(33, '0')}`)).toHaveLength(1);
    expect(cache.forSerial('iss-a', `4${(1).toString(16).padStart(33, '0')}`)).toEqual([]);
  });

  it('keeps a response and its CertID in a store of their own, not in the Buffer pool slab of the request', () => {
    // Decoded like a GET: the DER (and so the CertID inside it) is a slice of Node's 8 KiB pool.
    const request = parseOcspRequest(
      decodeOcspGetPath(encodeOcspGetPath(createOcspRequest([hashes.certId('4a11')]))),
    );
    const certId = request.certIds[0];
    expect(certId.der.buffer.byteLength).toBeGreaterThan(1000);
    const stored = new ResponseCache().put({ ...entry('iss-a', '4a11', now), certId });
    expect(stored.der.buffer.byteLength).toBe(stored.der.length + certId.der.length);
    expect(stored.certId.der.buffer).toBe(stored.der.buffer);
    expect(stored.certId).toEqual(certId);
    expect(stored.certId.issuerNameHash.buffer).toBe(stored.der.buffer);
  });

  it('finds a response again by the exact request, always the current entry of its CertID', () => {
    const cache = cacheHolding(2);
    const first = cache.put(entry('iss-a', '4a11', now));
    expect(cache.lookup('iss-a', 'Gabc', now)).toBeUndefined();
    cache.remember('iss-a', 'Gabc', first.certId.der);
    cache.remember('iss-a', 'Pxyz', first.certId.der);
    expect(cache.lookup('iss-a', 'Gabc', now)).toBe(first);
    expect(cache.lookup('iss-a', 'Pxyz', now)).toBe(first);
    expect(cache.lookup('iss-b', 'Gabc', now)).toBeUndefined();
    // Re-signed (e.g. after a revocation): the same request now finds the new response.
    const resigned = cache.put(entry('iss-a', '4a11', new Date('2026-03-01T10:00:05Z')));
    expect(cache.lookup('iss-a', 'Gabc', now)).toBe(resigned);
    // Due for refresh: not served from the request index either.
    expect(cache.lookup('iss-a', 'Gabc', new Date('2026-03-01T10:31:00Z'))).toBeUndefined();
    // Dropped with its issuer (new responder): the request misses until answered again.
    cache.dropIssuer('iss-a');
    expect(cache.lookup('iss-a', 'Gabc', now)).toBeUndefined();
  });

  it('bounds the request index in bytes, least recently used out first', () => {
    const cache = new ResponseCache(1024 * 1024);
    const e = cache.put(entry('iss-a', '4a11', now));
    const request = (i: number) => `G${String(i).padStart(200, 'A')}`;
    for (let i = 0; i < 5000; i++) cache.remember('iss-a', request(i), e.certId.der);
    expect(cache.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(cache.lookup('iss-a', request(0), now)).toBeUndefined();
    expect(cache.lookup('iss-a', request(4999), now)).toBe(e);
  });

  it('does not remember a request longer than a padded one-CertID request can need', () => {
    const cache = new ResponseCache();
    const e = cache.put(entry('iss-a', '4a11', now));
    const long = `G${'A'.repeat(MAX_REMEMBERED_REQUEST_CHARS)}`;
    cache.remember('iss-a', long, e.certId.der);
    expect(cache.lookup('iss-a', long, now)).toBeUndefined();
    cache.remember('iss-a', long.slice(0, MAX_REMEMBERED_REQUEST_CHARS), e.certId.der);
    expect(cache.lookup('iss-a', long.slice(0, MAX_REMEMBERED_REQUEST_CHARS), now)).toBe(e);
  });
});
