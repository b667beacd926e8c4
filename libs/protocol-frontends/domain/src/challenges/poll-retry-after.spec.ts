import {
  authorizationRetryAfterSeconds,
  challengeRetryAfterSeconds,
  MAX_POLL_RETRY_AFTER_SECONDS,
} from './poll-retry-after';

const now = new Date('2026-11-29T12:00:00Z');
const inSeconds = (s: number) => new Date(now.getTime() + s * 1000);

describe('challengeRetryAfterSeconds (RFC 8555 8.2)', () => {
  it.each([
    { when: 'unknown', retryAt: null, expected: 1 },
    { when: 'past', retryAt: inSeconds(-5), expected: 1 },
    { when: 'now', retryAt: now, expected: 1 },
    { when: 'in 1.2 s, rounded up', retryAt: inSeconds(1.2), expected: 2 },
    { when: 'in 7 s', retryAt: inSeconds(7), expected: 7 },
    { when: 'beyond the cap', retryAt: inSeconds(60), expected: MAX_POLL_RETRY_AFTER_SECONDS },
  ])('retry time $when -> $expected s', ({ retryAt, expected }) => {
    expect(challengeRetryAfterSeconds(retryAt, now)).toBe(expected);
  });
});

describe('authorizationRetryAfterSeconds (RFC 8555 7.5.1)', () => {
  it.each(['valid', 'invalid', 'deactivated', 'expired', 'revoked'])('%s: no Retry-After', (status) => {
    expect(
      authorizationRetryAfterSeconds(status, [{ status: 'processing', retry_at: null }], now),
    ).toBeNull();
  });

  it('pending with no challenge answered: 1 s', () => {
    expect(
      authorizationRetryAfterSeconds('pending', [{ status: 'pending' }, { status: 'pending' }], now),
    ).toBe(1);
  });

  it('pending with a challenge processing: its next attempt', () => {
    const challenges = [{ status: 'pending' }, { status: 'processing', retry_at: inSeconds(8) }];
    expect(authorizationRetryAfterSeconds('pending', challenges, now)).toBe(8);
  });

  it('pending with two challenges processing: the sooner attempt', () => {
    const challenges = [
      { status: 'processing', retry_at: inSeconds(9) },
      { status: 'processing', retry_at: inSeconds(3) },
    ];
    expect(authorizationRetryAfterSeconds('pending', challenges, now)).toBe(3);
  });
});
