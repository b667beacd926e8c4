import { formatDuration, parseDuration } from './duration';

describe(parseDuration.name, () => {
  it.each([
    ['90', 90_000],
    ['90s', 90_000],
    ['10m', 600_000],
    ['1h', 3_600_000],
    ['500ms', 500],
    ['0', 0],
    ['1.5m', 90_000],
  ])('reads %s as %p ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'ten', '-1s', '10 minutes', '5d'])('refuses %p', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('formats whole minutes as minutes, the rest as seconds', () => {
    expect([formatDuration(600_000), formatDuration(90_000)]).toEqual(['10 min', '90 s']);
  });
});
