import {
  STALE_ANSWER_MARGIN_MS,
  STALE_ANSWER_RETRY_MS,
  StaleAnswerCase,
  staleAnswerUntil,
} from './stale-answers';

const minute = 60_000;
/** Signed at 0 (valid an hour), refresh due at 30 minutes, now 31 minutes: Postgres is down. */
const outage: StaleAnswerCase = {
  now: 31 * minute,
  signedAt: 0,
  nextUpdate: 60 * minute,
  outage: true,
  listeningSince: 0,
  backlog: false,
  heardUnrecorded: false,
};

describe(staleAnswerUntil.name, () => {
  it('serves a still valid answer during an outage until the next attempt to sign', () => {
    expect(staleAnswerUntil(outage)).toBe(outage.now + STALE_ANSWER_RETRY_MS);
  });

  it('never within the margin of its nextUpdate (clients allow some clock skew)', () => {
    const last = outage.nextUpdate - STALE_ANSWER_MARGIN_MS;
    expect(staleAnswerUntil({ ...outage, now: last - 10_000 })).toBe(last);
    expect(staleAnswerUntil({ ...outage, now: last })).toBeUndefined();
    expect(staleAnswerUntil({ ...outage, now: outage.nextUpdate + 1 })).toBeUndefined();
  });

  it.each([
    ['the failure is a gap in what the replica knows, not an outage', { outage: false }],
    ['the replica may have missed revocations (a backlog)', { backlog: true }],
    ['a revocation of the serial was heard that the consumer has not recorded', { heardUnrecorded: true }],
    [
      'it was signed before the replica last began to listen (it missed the fan-out since)',
      { listeningSince: 1000 },
    ],
  ])('does not serve it when %s (RFC 6960 2.2)', (_why, change) => {
    expect(staleAnswerUntil({ ...outage, ...change })).toBeUndefined();
  });
});
