import {
  CRL_PART_BYTES,
  crlPartCount,
  crlPartRange,
  entriesWithinBytes,
  LIST_ENTRIES_MAX_BYTES,
} from './crl-parts';

describe('CRL parts on the bus', () => {
  it('sends a CRL in parts small enough for a 1 MiB NATS message as base64 with its JSON', () => {
    const base64 = Math.ceil(CRL_PART_BYTES / 3) * 4;
    expect(base64 + 1024).toBeLessThan(1024 * 1024);
  });

  it('counts at least one part, and one more for each started part', () => {
    expect(crlPartCount(0)).toBe(1);
    expect(crlPartCount(500)).toBe(1);
    expect(crlPartCount(CRL_PART_BYTES)).toBe(1);
    expect(crlPartCount(CRL_PART_BYTES + 1)).toBe(2);
    expect(crlPartCount(1_434_000)).toBe(3);
    expect(crlPartCount(10, 4)).toBe(3);
  });

  it('gives each part its bytes, the last one shorter, and nothing past the end', () => {
    expect(crlPartRange(0, 10, 4)).toEqual({ offset: 0, length: 4 });
    expect(crlPartRange(1, 10, 4)).toEqual({ offset: 4, length: 4 });
    expect(crlPartRange(2, 10, 4)).toEqual({ offset: 8, length: 2 });
    expect(crlPartRange(3, 10, 4)).toEqual({ offset: 10, length: 0 });
    expect(crlPartRange(9, 10, 4)).toEqual({ offset: 10, length: 0 });
    const total = 3 * CRL_PART_BYTES - 5;
    const covered = [0, 1, 2].map((p) => crlPartRange(p, total)).reduce((n, r) => n + r.length, 0);
    expect(covered).toBe(total);
  });
});

describe('the JSON revocation list in one bus message', () => {
  const entry = (i: number, issuer = 'iss-local') => ({
    issuer_id: issuer,
    serial_number: `4${i.toString(16).padStart(33, '0')}`,
    revocation_date: '2026-01-01T00:00:00.000Z',
    revocation_reason: 'keyCompromise',
  });

  it('keeps every entry of a page that fits', () => {
    const entries = Array.from({ length: 1000 }, (_, i) => entry(i));
    expect(entriesWithinBytes(entries)).toEqual(entries);
  });

  it('stops 10,000 entries before their JSON passes the bound, and the reply fits in 1 MiB', () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => entry(i, 'i'.repeat(128)));
    const kept = entriesWithinBytes(entries);
    expect(kept.length).toBeGreaterThan(2000);
    expect(kept.length).toBeLessThan(10_000);
    expect(kept).toEqual(entries.slice(0, kept.length));
    const reply = JSON.stringify({
      ok: true,
      data: { version: 2 ** 53, entries: kept, total: 10_000_000, generated_at: new Date().toISOString() },
    });
    expect(Buffer.byteLength(reply)).toBeLessThanOrEqual(LIST_ENTRIES_MAX_BYTES + 200);
    expect(Buffer.byteLength(reply)).toBeLessThan(1024 * 1024);
  });

  it('counts bytes, not characters, and always keeps the first entry', () => {
    const wide = [entry(1, 'é'.repeat(100)), entry(2, 'é'.repeat(100))];
    const bytes = Buffer.byteLength(JSON.stringify(wide[0])) + 1;
    expect(entriesWithinBytes(wide, bytes)).toEqual([wide[0]]);
    expect(entriesWithinBytes(wide, 10)).toEqual([wide[0]]);
    expect(entriesWithinBytes([], 10)).toEqual([]);
  });
});
