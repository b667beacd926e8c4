import { boundedKey, cut, fitDetails, fitJson } from './text-limits';

describe('text limits', () => {
  it('cut: unchanged when it fits; else marked with an ellipsis within the limit, never half a pair', () => {
    expect(cut('short', 5)).toBe('short');
    expect(cut('longer', 4)).toBe('lon…');
    expect(cut('ab😀', 3)).toBe('ab…');
    expect(cut('a😀b', 3)).toBe('a…');
  });

  it('boundedKey: distinct and stable past the limit', () => {
    const a = boundedKey(`${'k'.repeat(300)}a`, 255);
    expect(a).toHaveLength(255);
    expect(boundedKey(`${'k'.repeat(300)}a`, 255)).toBe(a);
    expect(boundedKey(`${'k'.repeat(300)}b`, 255)).not.toBe(a);
    expect(boundedKey('short', 255)).toBe('short');
  });

  it('fitDetails: short values whole, long ones cut to a common length, keys that do not fit left out', () => {
    const fitted = fitDetails({ a: 'x'.repeat(100), b: 'y'.repeat(100), c: 'z', n: 7 }, 60);
    expect(fitted).toEqual({ a: `${'x'.repeat(26)}…`, b: `${'y'.repeat(26)}…`, c: 'z', n: 7 });
    expect(fitDetails({ first: 'v', second: 'w' }, 6)).toEqual({ first: 'v' });
  });

  it('fitJson: bytes, not characters, so escapes and multi-byte text still fit', () => {
    const json = fitJson({ e: '\u0001'.repeat(1_000) }, 200, (details) => ({ details }));
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(200);
  });
});
