import { CHALLENGE_STATUSES, ChallengeEvent, ChallengeStatus, nextChallengeStatus } from './challenge-status';

const R = 'refused';
const outcome = (from: ChallengeStatus, event: ChallengeEvent): string => {
  const result = nextChallengeStatus(from, event);
  if (!result.ok) return R;
  return result.changed ? result.to : `unchanged ${result.to}`;
};
const table = (values: string[]): Record<ChallengeStatus, string> =>
  Object.fromEntries(CHALLENGE_STATUSES.map((s, i) => [s, values[i]])) as Record<ChallengeStatus, string>;

const cases: [ChallengeEvent, Record<ChallengeStatus, string>][] = [
  [
    { kind: 'respond' },
    table(['processing', 'unchanged processing', 'unchanged valid', 'unchanged invalid']),
  ],
  [{ kind: 'validated' }, table([R, 'valid', R, R])],
  [{ kind: 'validation-failed' }, table([R, 'invalid', R, R])],
];

describe('nextChallengeStatus', () => {
  for (const [event, expected] of cases) {
    describe(event.kind, () => {
      it.each(CHALLENGE_STATUSES.map((s) => [s, expected[s]]))('from %s -> %s', (from, want) => {
        expect(outcome(from as ChallengeStatus, event)).toBe(want);
      });
    });
  }
});
