import {
  bulkEarlyRenewalWindow,
  earlyRenewalWindow,
  isRenewalCertId,
  renewalCertId,
  renewalInfoOf,
  suggestedRenewalWindow,
} from './renewal-info';

describe('renewal information (RFC 9773)', () => {
  it('builds the certificate identifier of RFC 9773 4.1 (its example)', () => {
    const aki = Buffer.from('69885b6b87464041e1b37b847ba0ae2cde01c8d4', 'hex');
    const serial = Buffer.from('0087654321', 'hex');
    expect(renewalCertId(aki, serial)).toBe('aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE');
    expect(isRenewalCertId('aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE')).toBe(true);
    expect(isRenewalCertId('no-dot')).toBe(false);
    expect(isRenewalCertId('a.b/c')).toBe(false);
  });

  it('suggests two thirds to three quarters of the lifetime', () => {
    const notBefore = new Date('2026-01-01T00:00:00Z');
    const notAfter = new Date('2026-04-01T00:00:00Z'); // 90 days
    const { start, end } = suggestedRenewalWindow({ notBefore, notAfter });
    expect(start.toISOString()).toBe('2026-03-02T00:00:00.000Z');
    expect(end.toISOString()).toBe('2026-03-09T12:00:00.000Z');
  });

  it('RFC 9773 4.2: a revoked certificate gets a window in the past', () => {
    const revokedAt = new Date('2026-02-01T00:00:00Z');
    const { start, end } = suggestedRenewalWindow({
      notBefore: new Date('2026-01-01T00:00:00Z'),
      notAfter: new Date('2026-04-01T00:00:00Z'),
      revokedAt,
    });
    expect(end).toEqual(revokedAt);
    expect(start.getTime()).toBeLessThan(end.getTime());
  });

  it('a replaced (already renewed) certificate gets the last hundredth of its lifetime', () => {
    const notAfter = new Date('2026-04-01T00:00:00Z');
    const { start, end } = suggestedRenewalWindow({
      notBefore: new Date('2026-01-01T00:00:00Z'),
      notAfter,
      replaced: true,
    });
    expect(end).toEqual(notAfter);
    expect(start.toISOString()).toBe('2026-03-31T02:24:00.000Z');
  });
});

describe('early renewal asked by an operator (RFC 9773 4.2)', () => {
  const notBefore = new Date('2026-01-01T00:00:00Z');
  const notAfter = new Date('2026-04-01T00:00:00Z');
  const now = new Date('2026-01-10T00:00:00Z');

  it('spreads clients from now over the spread, never past the end of validity', () => {
    expect(earlyRenewalWindow(now, notAfter)).toEqual({
      start: now,
      end: new Date('2026-01-10T01:00:00Z'),
    });
    const late = new Date('2026-03-31T23:30:00Z');
    expect(earlyRenewalWindow(late, notAfter)).toEqual({ start: late, end: notAfter });
    expect(earlyRenewalWindow(notAfter, notAfter)).toBeNull();
  });

  it('moves many certificates at once to the window each would get alone (closed at its end; expired ones left out)', () => {
    const spread = 3 * 3600_000;
    const all = bulkEarlyRenewalWindow(now, spread);
    expect(all).toEqual({ start: now, end: new Date(now.getTime() + spread) });
    expect(bulkEarlyRenewalWindow(now)).toEqual(earlyRenewalWindow(now, notAfter));
    // What the bulk statement does per row: start, min(end, not_after), and not_after > start.
    const inBulk = (end: Date) =>
      end.getTime() > all.start.getTime()
        ? { start: all.start, end: new Date(Math.min(all.end.getTime(), end.getTime())) }
        : null;
    for (const end of [
      notAfter,
      new Date(now.getTime() + spread),
      new Date(now.getTime() + spread - 1),
      new Date(now.getTime() + 1),
      now,
      new Date(now.getTime() - 1),
    ])
      expect(inBulk(end)).toEqual(earlyRenewalWindow(now, end, spread));
  });

  it('refuses a spread that is not positive', () => {
    expect(() => bulkEarlyRenewalWindow(now, 0)).toThrow(RangeError);
    expect(() => bulkEarlyRenewalWindow(now, -60_000)).toThrow(RangeError);
  });

  it('answers the early window with its explanationURL', () => {
    const renewEarly = earlyRenewalWindow(now, notAfter, 6 * 3600_000)!;
    expect(
      renewalInfoOf({ notBefore, notAfter, renewEarly, explanationUrl: 'https://status.example/incident' }),
    ).toEqual({
      suggestedWindow: { start: '2026-01-10T00:00:00.000Z', end: '2026-01-10T06:00:00.000Z' },
      explanationURL: 'https://status.example/incident',
    });
  });

  it('answers the ordinary window, without explanationURL, when nothing was asked', () => {
    expect(renewalInfoOf({ notBefore, notAfter })).toEqual({
      suggestedWindow: { start: '2026-03-02T00:00:00.000Z', end: '2026-03-09T12:00:00.000Z' },
    });
  });

  it('never moves a window later: an early window closing after the ordinary one is ignored', () => {
    const renewEarly = { start: new Date('2026-03-09T00:00:00Z'), end: new Date('2026-03-10T00:00:00Z') };
    expect(renewalInfoOf({ notBefore, notAfter, renewEarly }).suggestedWindow.end).toBe(
      '2026-03-09T12:00:00.000Z',
    );
  });

  it('RFC 9773 4.2: a revoked certificate gets a past window and the configured explanation first', () => {
    const revokedAt = new Date('2026-02-01T00:00:00Z');
    const renewEarly = earlyRenewalWindow(now, notAfter)!;
    const info = renewalInfoOf(
      { notBefore, notAfter, revokedAt, renewEarly, explanationUrl: 'https://ops.example/early' },
      'https://ca.example/revoked',
    );
    expect(info).toEqual({
      suggestedWindow: { start: '2026-01-31T23:00:00.000Z', end: '2026-02-01T00:00:00.000Z' },
      explanationURL: 'https://ca.example/revoked',
    });
    expect(renewalInfoOf({ notBefore, notAfter, revokedAt }).explanationURL).toBeUndefined();
  });
});
