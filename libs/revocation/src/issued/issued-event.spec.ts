import { isRemoteCaIssued, parseIssuedEvent } from './issued-event';

const valid = {
  issuer_id: 'iss-local',
  ca_id: 'ca-local-issuing-1',
  serial_hex: '004a11',
  not_before: '2026-01-02T03:04:05Z',
  not_after: '2026-04-02T03:04:05Z',
  fingerprint_sha256: 'ab'.repeat(32),
  issued_at: '2026-01-02T03:04:06Z',
};

describe(parseIssuedEvent.name, () => {
  it('accepts a contract event, with a canonical serial and ISO times', () => {
    expect(parseIssuedEvent(valid)).toEqual({
      ...valid,
      serial_hex: '4a11',
      not_before: '2026-01-02T03:04:05.000Z',
      not_after: '2026-04-02T03:04:05.000Z',
      issued_at: '2026-01-02T03:04:06.000Z',
    });
  });

  it.each([
    [null, /not an object/],
    [{ ...valid, issuer_id: '' }, /issuer_id/],
    [{ ...valid, ca_id: 'local-issuing' }, /ca_id/],
    [{ ...valid, ca_id: undefined }, /ca_id/],
    [{ ...valid, serial_hex: '4A11' }, /serial_hex/],
    [{ ...valid, fingerprint_sha256: 'abc' }, /fingerprint/],
    [{ ...valid, not_after: 'later' }, /ISO dates/],
    [{ ...valid, issued_at: 5 }, /ISO dates/],
  ])('refuses %j', (event, problem) => {
    const parsed = parseIssuedEvent(event);
    expect('invalid' in parsed && parsed.invalid).toMatch(problem);
  });
});

describe(isRemoteCaIssued.name, () => {
  it("is true only for a payload whose ca_id is empty (a remote CA's certificate)", () => {
    expect(isRemoteCaIssued({ issuer_id: 'iss-script', ca_id: '' })).toBe(true);
    expect(isRemoteCaIssued({ issuer_id: 'iss-local', ca_id: 'ca-1' })).toBe(false);
    expect(isRemoteCaIssued({ issuer_id: 'iss-local' })).toBe(false);
    expect(isRemoteCaIssued(null)).toBe(false);
    expect(isRemoteCaIssued('')).toBe(false);
  });
});
