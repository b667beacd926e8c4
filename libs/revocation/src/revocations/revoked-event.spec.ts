import { canonicalSerial } from '../serials/canonical-serial';
import { parseRevokedEvent } from './revoked-event';

const valid = {
  issuer_id: 'iss-local',
  serial_hex: '004a11',
  reason: 'keyCompromise',
  revoked_at: '2026-01-02T03:04:05Z',
};

describe(parseRevokedEvent.name, () => {
  it('accepts a contract event, with a canonical serial and an ISO time', () => {
    expect(parseRevokedEvent({ ...valid, certificate_id: 'crt-1' })).toEqual({
      issuer_id: 'iss-local',
      serial_hex: '4a11',
      reason: 'keyCompromise',
      revoked_at: '2026-01-02T03:04:05.000Z',
      certificate_id: 'crt-1',
    });
  });

  it('defaults the reason to unspecified and keeps the spec 2.16 spelling of caCompromise and aaCompromise', () => {
    expect(parseRevokedEvent({ ...valid, reason: undefined })).toMatchObject({ reason: 'unspecified' });
    expect(parseRevokedEvent({ ...valid, reason: 'caCompromise' })).toMatchObject({ reason: 'caCompromise' });
    expect(parseRevokedEvent({ ...valid, reason: 'aaCompromise' })).toMatchObject({ reason: 'aaCompromise' });
  });

  it('reads an event in the old ASN.1 spelling (published before ADR 0037) as the spec spelling', () => {
    expect(parseRevokedEvent({ ...valid, reason: 'cACompromise' })).toMatchObject({ reason: 'caCompromise' });
    expect(parseRevokedEvent({ ...valid, reason: 'aACompromise' })).toMatchObject({ reason: 'aaCompromise' });
  });

  it.each([
    [null, /not an object/],
    [{ ...valid, issuer_id: '' }, /issuer_id/],
    [{ ...valid, issuer_id: 'x'.repeat(129) }, /issuer_id/],
    [{ ...valid, serial_hex: '4A11' }, /serial_hex/],
    [{ ...valid, serial_hex: 'a'.repeat(41) }, /serial_hex/],
    [{ ...valid, reason: 'lost' }, /reason/],
    [{ ...valid, reason: 'constructor' }, /reason/],
    [{ ...valid, revoked_at: 'yesterday' }, /revoked_at/],
    [{ ...valid, revoked_at: 5 }, /revoked_at/],
    [{ ...valid, certificate_id: 5 }, /certificate_id/],
  ])('refuses %j', (event, problem) => {
    const parsed = parseRevokedEvent(event);
    expect('invalid' in parsed && parsed.invalid).toMatch(problem);
  });

  it('canonicalises serials', () => {
    expect(canonicalSerial('00FF')).toBe('ff');
    expect(canonicalSerial('000')).toBe('0');
  });
});
