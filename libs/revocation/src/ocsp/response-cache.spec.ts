import { IssuerHashes, createSelfSignedCa, SoftwareKeyProvider } from '@certlane/pki';
import { CachedResponse, ResponseCache, responseTimes } from './response-cache';

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
    der: Buffer.from(`${issuerId}/${serial}/${hash}/${at.toISOString()}`),
    ...responseTimes(at),
  });

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

  it('returns a response until its refresh time, per issuer and CertID', () => {
    const cache = new ResponseCache();
    const e = entry('iss-a', '4a11', now);
    cache.put(e);
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
    const sha1 = entry('iss-a', '4a11', now);
    const sha256 = entry('iss-a', '4a11', now, 'sha256');
    cache.put(sha1);
    cache.put(sha256);
    cache.put(entry('iss-a', '4b22', now));
    expect(cache.forSerial('iss-a', '4a11')).toEqual([sha1, sha256]);
    expect(cache.forSerial('iss-a', '004a11')).toEqual([sha1, sha256]);
    const later = entry('iss-a', '4a11', new Date('2026-03-01T10:05:00Z'));
    cache.put(later);
    expect(cache.size).toBe(3);
    expect(cache.forSerial('iss-a', '4a11')).toEqual([later, sha256]);
  });

  it('evicts the least recently stored beyond its bound and drops an issuer', () => {
    const cache = new ResponseCache(2);
    const a = entry('iss-a', '01', now);
    const b = entry('iss-b', '02', now);
    const c = entry('iss-a', '03', now);
    cache.put(a);
    cache.put(b);
    cache.put(c);
    expect(cache.size).toBe(2);
    expect(cache.get('iss-a', a.certId.der, now)).toBeUndefined();
    expect(cache.forSerial('iss-a', '01')).toEqual([]);
    cache.dropIssuer('iss-a');
    expect(cache.size).toBe(1);
    expect(cache.get('iss-b', b.certId.der, now)).toBe(b);
  });

  it('finds a response again by the exact request, always the current entry of its CertID', () => {
    const cache = new ResponseCache(2);
    const first = entry('iss-a', '4a11', now);
    cache.put(first);
    expect(cache.lookup('iss-a', 'Gabc', now)).toBeUndefined();
    cache.remember('iss-a', 'Gabc', first.certId.der);
    cache.remember('iss-a', 'Pxyz', first.certId.der);
    expect(cache.lookup('iss-a', 'Gabc', now)).toBe(first);
    expect(cache.lookup('iss-a', 'Pxyz', now)).toBe(first);
    expect(cache.lookup('iss-b', 'Gabc', now)).toBeUndefined();
    // Re-signed (e.g. after a revocation): the same request now finds the new response.
    const resigned = entry('iss-a', '4a11', new Date('2026-03-01T10:00:05Z'));
    cache.put(resigned);
    expect(cache.lookup('iss-a', 'Gabc', now)).toBe(resigned);
    // Due for refresh: not served from the request index either.
    expect(cache.lookup('iss-a', 'Gabc', new Date('2026-03-01T10:31:00Z'))).toBeUndefined();
    // Dropped with its issuer (new responder): the request misses until answered again.
    cache.dropIssuer('iss-a');
    expect(cache.lookup('iss-a', 'Gabc', now)).toBeUndefined();
  });

  it('bounds the request index like the responses', () => {
    const cache = new ResponseCache(2);
    const e = entry('iss-a', '4a11', now);
    cache.put(e);
    cache.remember('iss-a', 'G1', e.certId.der);
    cache.remember('iss-a', 'G2', e.certId.der);
    cache.remember('iss-a', 'G3', e.certId.der);
    expect(cache.lookup('iss-a', 'G1', now)).toBeUndefined();
    expect(cache.lookup('iss-a', 'G2', now)).toBe(e);
    expect(cache.lookup('iss-a', 'G3', now)).toBe(e);
  });
});
