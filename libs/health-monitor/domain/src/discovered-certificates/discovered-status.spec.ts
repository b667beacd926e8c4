import {
  DISCOVERED_STATUSES,
  DiscoveredStatus,
  DiscoveredTrigger,
  nextDiscoveredStatus,
} from './discovered-status';

const outcome = (from: DiscoveredStatus, trigger: DiscoveredTrigger): string => {
  const result = nextDiscoveredStatus(from, trigger);
  if (!result.ok) return `refused:${result.code}`;
  return result.changed ? result.to : `${result.to} (unchanged)`;
};

const R = 'refused:discovered_certificate_claimed';
//                                  Unmanaged                 Claimed                 Dismissed
const cases: [DiscoveredTrigger, string[]][] = [
  ['claim', ['Claimed', R, 'Claimed']],
  ['dismiss', ['Dismissed', R, 'Dismissed (unchanged)']],
  ['rediscover', ['Unmanaged (unchanged)', 'Claimed (unchanged)', 'Dismissed (unchanged)']],
];

describe('nextDiscoveredStatus', () => {
  for (const [trigger, expected] of cases) {
    DISCOVERED_STATUSES.forEach((from, i) => {
      it(`${from} + ${trigger} -> ${expected[i]}`, () => {
        expect(outcome(from, trigger)).toBe(expected[i]);
      });
    });
  }
});
