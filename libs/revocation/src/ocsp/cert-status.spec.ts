import { certStatusFor, plausibleSerial } from './cert-status';
import { responderRenewAt } from './responder-keys';

describe('OCSP status', () => {
  const localSerial = '4' + 'a'.repeat(33);

  it('knows the local CA serial format (17 octets, first bits 01)', () => {
    expect(plausibleSerial('local_ca', localSerial)).toBe(true);
    expect(plausibleSerial('local_ca', '7' + '0'.repeat(33))).toBe(true);
    expect(plausibleSerial('local_ca', '8' + '0'.repeat(33))).toBe(false);
    expect(plausibleSerial('local_ca', '4a11')).toBe(false);
    expect(plausibleSerial('acme', '4a11')).toBe(true);
  });

  it('is revoked with time and reason, good when plausible, unknown otherwise', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    expect(certStatusFor('local_ca', '4a11', { reason: 'keyCompromise', revoked_at: at }, false)).toEqual({
      status: 'revoked',
      revokedAt: at,
      reason: 'keyCompromise',
    });
    expect(certStatusFor('local_ca', '4a11', { reason: 'caCompromise', revoked_at: at }, false)).toEqual({
      status: 'revoked',
      revokedAt: at,
      reason: 'caCompromise',
    });
    expect(certStatusFor('local_ca', '4a11', { reason: 'unspecified', revoked_at: at }, false)).toEqual({
      status: 'revoked',
      revokedAt: at,
    });
    expect(certStatusFor('local_ca', localSerial, { reason: 'removeFromCRL', revoked_at: at }, true)).toEqual(
      {
        status: 'good',
      },
    );
    expect(certStatusFor('local_ca', localSerial, undefined, true)).toEqual({ status: 'good' });
    expect(certStatusFor('local_ca', '4a11', undefined, true)).toEqual({ status: 'unknown' });
  });

  it('is good only for a serial the CA issued, unknown for one never issued or issued by another CA', () => {
    expect(certStatusFor('local_ca', localSerial, undefined, true)).toEqual({ status: 'good' });
    expect(certStatusFor('local_ca', localSerial, undefined, false)).toEqual({ status: 'unknown' });
    // A kind that reports no issuance: any plausible serial is good (RFC 6960 2.2).
    expect(certStatusFor('acme', '4a11', undefined, undefined)).toEqual({ status: 'good' });
  });

  it('renews a responder certificate after two thirds of its life, at the latest a day before it ends', () => {
    const from = new Date('2026-01-01T00:00:00Z');
    expect(responderRenewAt(from, new Date('2026-01-31T00:00:00Z')).toISOString()).toBe(
      '2026-01-21T00:00:00.000Z',
    );
    expect(responderRenewAt(from, new Date('2026-01-02T12:00:00Z')).toISOString()).toBe(
      '2026-01-01T12:00:00.000Z',
    );
  });

  it('renews a responder certificate the configured lead time before it ends, never within 5 s of its start', () => {
    const from = new Date('2026-01-01T00:00:00Z');
    const to = new Date('2026-01-31T00:00:00Z');
    expect(responderRenewAt(from, to, 20 * 86_400_000).toISOString()).toBe('2026-01-11T00:00:00.000Z');
    expect(responderRenewAt(from, to, 30 * 86_400_000 - 5000).toISOString()).toBe('2026-01-01T00:00:05.000Z');
    expect(responderRenewAt(from, to, 30 * 86_400_000).toISOString()).toBe('2026-01-01T00:00:05.000Z');
  });
});
