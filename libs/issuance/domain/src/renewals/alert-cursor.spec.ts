import { advanceAlertCursor, AlertCursor, compareAlertCursors } from './alert-cursor';

const at = (expires_at: string, id: string): AlertCursor => ({ expires_at, id });

describe('expiry-warning cursor', () => {
  it('orders by expiry to the microsecond, then by id', () => {
    expect(
      compareAlertCursors(at('2026-12-09T10:00:00.123456Z', 'b'), at('2026-12-09T10:00:00.123457Z', 'a')),
    ).toBe(-1);
    expect(
      compareAlertCursors(at('2026-12-09T10:00:00.123456Z', 'b'), at('2026-12-09T10:00:00.123456Z', 'a')),
    ).toBe(1);
    expect(
      compareAlertCursors(at('2026-12-09T10:00:00.123456Z', 'a'), at('2026-12-09T10:00:00.123456Z', 'a')),
    ).toBe(0);
  });

  it('starts from any last row', () => {
    expect(advanceAlertCursor(null, at('2026-12-09T10:00:00.000000Z', 'a'))).toEqual(
      at('2026-12-09T10:00:00.000000Z', 'a'),
    );
  });

  it('moves past rows that share a sub-millisecond expiry (a millisecond cursor would not)', () => {
    const previous = at('2026-12-09T10:00:00.123456Z', 'c-0999');
    const last = at('2026-12-09T10:00:00.123456Z', 'c-1999');
    expect(advanceAlertCursor(previous, last)).toEqual(last);
  });

  it('refuses a cursor that stays put or goes back, instead of repeating the batch forever', () => {
    const previous = at('2026-12-09T10:00:00.123456Z', 'c-0999');
    expect(() => advanceAlertCursor(previous, previous)).toThrow(/did not advance/);
    // What a Date round trip makes of it: milliseconds, earlier than the row itself.
    expect(() => advanceAlertCursor(previous, at('2026-12-09T10:00:00.123000Z', 'c-1999'))).toThrow(
      /did not advance/,
    );
  });
});
