import { decideAttempt } from './rate-limit-window';

const MINUTE = 60_000;

describe(decideAttempt.name, () => {
  it('allows the first five attempts of a minute and refuses the sixth', () => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      expect(decideAttempt(times, 1000 + i * 100, 5, MINUTE)).toEqual({ allowed: true });
      times.push(1000 + i * 100);
    }
    expect(decideAttempt(times, 1500, 5, MINUTE)).toEqual({ allowed: false, retryAfterSeconds: 60 });
  });

  it('tells how long until the oldest attempt leaves the window, rounded up', () => {
    const times = [0, 10_000, 20_000, 30_000, 40_000];
    expect(decideAttempt(times, 45_000, 5, MINUTE)).toEqual({ allowed: false, retryAfterSeconds: 15 });
    expect(decideAttempt(times, 59_001, 5, MINUTE)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(decideAttempt(times, 45_500, 5, MINUTE)).toEqual({ allowed: false, retryAfterSeconds: 15 });
  });

  it('slides: an attempt exactly one window old no longer counts', () => {
    const times = [0, 10_000, 20_000, 30_000, 40_000];
    expect(decideAttempt(times, 59_999, 5, MINUTE).allowed).toBe(false);
    expect(decideAttempt(times, 60_000, 5, MINUTE)).toEqual({ allowed: true });
  });

  it('is not a fixed window: five at the end of one minute still block the start of the next', () => {
    const times = [55_000, 56_000, 57_000, 58_000, 59_000];
    expect(decideAttempt(times, 61_000, 5, MINUTE)).toEqual({ allowed: false, retryAfterSeconds: 54 });
  });

  it('with more attempts than the limit, waits for enough of them to leave', () => {
    const times = [0, 1000, 2000, 3000, 4000, 5000, 6000];
    // Seven in the window, limit five: the third oldest (2000) must leave first.
    expect(decideAttempt(times, 10_000, 5, MINUTE)).toEqual({ allowed: false, retryAfterSeconds: 52 });
  });

  it('ignores attempts in the future and in the past beyond the window, whatever their order', () => {
    const times = [90_000, -25_000, 30_000, 31_000, 29_000, 32_000];
    expect(decideAttempt(times, 40_000, 5, MINUTE)).toEqual({ allowed: true });
  });

  it('honours other limits and windows', () => {
    expect(decideAttempt([0], 500, 1, 1000)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(decideAttempt([0], 1000, 1, 1000)).toEqual({ allowed: true });
  });
});
