import { problemOf } from '../testing/problem-of';
import { checkValidityAtFinalize, requestedValidity } from './requested-validity';

describe('requested validity (RFC 8555 7.4 notBefore/notAfter, ADR 0069)', () => {
  const now = new Date('2026-11-29T12:00:00Z');
  const allowed = { allowed: true, maxDays: 10 };
  const asked = (payload: { notBefore?: unknown; notAfter?: unknown }, rules = allowed) =>
    requestedValidity(payload, rules, now);

  it('asks nothing when neither field is given, whatever the profile', () => {
    expect(asked({}, { allowed: false, maxDays: 1 })).toEqual({ notBefore: null, notAfter: null });
  });

  it('refuses either field as malformed on a profile that does not allow them', () => {
    for (const payload of [{ notAfter: '2026-11-30T00:00:00Z' }, { notBefore: '2026-11-30T00:00:00Z' }]) {
      const problem = problemOf(() => asked(payload, { allowed: false, maxDays: 10 }));
      expect(problem.type).toBe('malformed');
      expect(problem.detail).toContain('does not accept');
    }
  });

  it('takes a window within the profile as asked, offsets and fractions included (RFC 3339)', () => {
    expect(asked({ notBefore: '2026-11-30T00:00:00Z', notAfter: '2026-12-02T00:00:00.5+01:00' })).toEqual({
      notBefore: new Date('2026-11-30T00:00:00Z'),
      notAfter: new Date('2026-12-01T23:00:00.5Z'),
    });
    expect(asked({ notAfter: '2026-11-29t18:00:00z' })).toEqual({
      notBefore: null,
      notAfter: new Date('2026-11-29T18:00:00Z'),
    });
    expect(asked({ notBefore: '2026-11-29T11:56:00Z' }).notBefore).toEqual(new Date('2026-11-29T11:56:00Z'));
  });

  it.each([
    ['a date without time', '2026-12-01'],
    ['no offset', '2026-12-01T00:00:00'],
    ['a number', 1764547200],
    ['an impossible day', '2026-02-30T00:00:00Z'],
    ['an impossible hour', '2026-12-01T24:00:00Z'],
    ['free text', 'tomorrow'],
  ])('refuses %s as malformed (RFC 8555 7.1.3: RFC 3339 format)', (_case, value) => {
    expect(problemOf(() => asked({ notAfter: value })).type).toBe('malformed');
    expect(problemOf(() => asked({ notBefore: value })).type).toBe('malformed');
  });

  it('refuses backdating beyond the clock skew and postdating beyond 30 days', () => {
    expect(problemOf(() => asked({ notBefore: '2026-11-29T11:54:59Z' })).detail).toContain('backdated');
    expect(problemOf(() => asked({ notBefore: '2026-12-29T12:00:01Z' })).detail).toContain('30 days');
    expect(asked({ notBefore: '2026-12-29T12:00:00Z' }, { allowed: true, maxDays: 90 }).notBefore).toEqual(
      new Date('2026-12-29T12:00:00Z'),
    );
  });

  it('refuses a notAfter not later than the start or than now', () => {
    for (const payload of [
      { notBefore: '2026-11-30T00:00:00Z', notAfter: '2026-11-30T00:00:00Z' },
      { notBefore: '2026-11-30T00:00:00Z', notAfter: '2026-11-29T23:00:00Z' },
      { notAfter: '2026-11-29T12:00:00Z' },
      { notBefore: '2026-11-29T11:58:00Z', notAfter: '2026-11-29T11:59:00Z' },
    ])
      expect(problemOf(() => asked(payload)).detail).toContain('later than');
  });

  it("refuses a window longer than the profile's validity, counted from notBefore or now", () => {
    expect(problemOf(() => asked({ notAfter: '2026-12-09T12:00:01Z' })).detail).toContain('10 days');
    expect(asked({ notAfter: '2026-12-09T12:00:00Z' }).notAfter).toEqual(new Date('2026-12-09T12:00:00Z'));
    expect(
      problemOf(() => asked({ notBefore: '2026-12-01T00:00:00Z', notAfter: '2026-12-11T00:00:01Z' })).type,
    ).toBe('malformed');
  });

  it('refuses at finalize a notAfter that passed while the order waited, and nothing else', () => {
    const later = new Date('2026-11-30T00:00:00Z');
    expect(
      problemOf(() =>
        checkValidityAtFinalize({ notBefore: null, notAfter: new Date('2026-11-29T18:00:00Z') }, later),
      ).detail,
    ).toContain('has passed');
    expect(() =>
      checkValidityAtFinalize({ notBefore: new Date('2026-11-29T12:00:00Z'), notAfter: null }, later),
    ).not.toThrow();
    expect(() => checkValidityAtFinalize({ notBefore: null, notAfter: null }, later)).not.toThrow();
  });
});
