import {
  DISCOVERED_STATUSES,
  DISCOVERY_PRESENCES,
  DiscoveryPresence,
  nextPresence,
  PresenceTrigger,
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
  ['vanish', ['Unmanaged (unchanged)', 'Claimed (unchanged)', 'Dismissed (unchanged)']],
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

describe('nextPresence', () => {
  const triggers: [string, PresenceTrigger, [DiscoveryPresence, DiscoveryPresence]][] = [
    //                                                                               from present, from gone
    ['seen', { kind: 'seen' }, ['present', 'present']],
    [
      'missed by a complete run, seen nowhere else',
      { kind: 'missed', runComplete: true, presentElsewhere: false },
      ['gone', 'gone'],
    ],
    [
      'missed by a complete run, still seen elsewhere',
      { kind: 'missed', runComplete: true, presentElsewhere: true },
      ['present', 'gone'],
    ],
    [
      'missed by a failed or partial run',
      { kind: 'missed', runComplete: false, presentElsewhere: false },
      ['present', 'gone'],
    ],
  ];
  for (const [name, trigger, expected] of triggers) {
    DISCOVERY_PRESENCES.forEach((from, i) => {
      it(`${from} + ${name} -> ${expected[i]}`, () => {
        expect(nextPresence(from, trigger)).toBe(expected[i]);
      });
    });
  }
});
