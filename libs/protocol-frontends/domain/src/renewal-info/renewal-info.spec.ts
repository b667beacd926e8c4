import { isRenewalCertId, renewalCertId, suggestedRenewalWindow } from './renewal-info';

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
