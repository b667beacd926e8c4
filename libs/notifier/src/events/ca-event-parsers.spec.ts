import { parseCaExpiryWarning, parseCaRevoked } from './event-parsers';

describe('CA event parsers (ADR 0077)', () => {
  const warning = {
    ca_id: 'ca-team',
    issuer_id: 'iss-local',
    subject: 'CN=Team CA',
    status: 'active',
    issuing: true,
    root: false,
    not_after: '2026-12-20T00:00:00.000Z',
    threshold_days: 30,
    days_remaining: 19,
  };
  const revoked = {
    issuer_id: 'iss-local',
    ca_id: 'ca-team',
    serial_hex: '0abc',
    key_identifiers: ['aa'],
    retired_ca_ids: [],
    reason: 'caCompromise',
    revoked_at: '2026-12-01T10:00:00.000Z',
  };

  it('reads a CA expiry warning as sent', () => {
    expect(parseCaExpiryWarning(warning)).toEqual(warning);
  });

  it.each([
    ['not an object', 'x', 'payload is not an object'],
    ['no CA id', { ...warning, ca_id: '' }, 'ca_id is missing'],
    ['a status it never sends', { ...warning, status: 'revoked' }, 'status must be active or retired'],
    ['no end date', { ...warning, not_after: 'soon' }, 'not_after must be a date'],
    [
      'fractional days',
      { ...warning, days_remaining: 1.5 },
      'threshold_days and days_remaining must be integers',
    ],
  ])('refuses a CA expiry warning with %s', (_case, data, invalid) => {
    expect(parseCaExpiryWarning(data)).toEqual({ invalid });
  });

  it('reads a CA revocation as sent', () => {
    expect(parseCaRevoked(revoked)).toEqual(revoked);
  });

  it.each([
    [
      'no serial',
      { ...revoked, serial_hex: undefined },
      'issuer_id, ca_id, serial_hex and revoked_at are required',
    ],
    ['a hold reason', { ...revoked, reason: 'certificateHold' }, 'reason is not a CA revocation reason'],
  ])('refuses a CA revocation with %s', (_case, data, invalid) => {
    expect(parseCaRevoked(data)).toEqual({ invalid });
  });
});
