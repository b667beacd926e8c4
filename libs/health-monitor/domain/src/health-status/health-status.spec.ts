import {
  HealthState,
  HealthStatus,
  HealthTrigger,
  INITIAL_HEALTH_STATE,
  nextHealthState,
  normalizeFingerprint,
} from './health-status';

const EXPECTED = 'AB:CD:EF';
const served = (fingerprint: string, expected: string | null = EXPECTED): HealthTrigger => ({
  kind: 'probe',
  verdict: { kind: 'served', fingerprint },
  expectedFingerprint: expected,
});
const failed: HealthTrigger = {
  kind: 'probe',
  verdict: { kind: 'failed', error: 'connect ECONNREFUSED' },
  expectedFingerprint: EXPECTED,
};
const acknowledge: HealthTrigger = { kind: 'acknowledge' };

const state = (status: HealthStatus, consecutiveFailures: number, acknowledged = false): HealthState => ({
  status,
  consecutiveFailures,
  acknowledged,
});

const outcome = (from: HealthState, trigger: HealthTrigger): string => {
  const result = nextHealthState(from, trigger);
  if (!result.ok) return 'refused';
  const s = result.state;
  return `${s.status}/${s.consecutiveFailures}${s.acknowledged ? '/ack' : ''}`;
};

// Every status, at the failure counts where the thresholds matter.
const STATES: HealthState[] = [
  state('healthy', 0),
  state('healthy', 1),
  state('degraded', 2),
  state('degraded', 4),
  state('down', 5),
  state('down', 9),
  state('cert_mismatch', 0),
  state('cert_mismatch', 1),
];

const R = 'refused';
//                              healthy/0    healthy/1    degraded/2   degraded/4   down/5       down/9        mismatch/0         mismatch/1
const cases: [string, HealthTrigger, string[]][] = [
  [
    'matching fingerprint',
    served('abcdef'),
    ['healthy/0', 'healthy/0', 'healthy/0', 'healthy/0', 'healthy/0', 'healthy/0', 'healthy/0', 'healthy/0'],
  ],
  [
    'no expected fingerprint',
    served('0123', null),
    ['healthy/0', 'healthy/0', 'healthy/0', 'healthy/0', 'healthy/0', 'healthy/0', 'healthy/0', 'healthy/0'],
  ],
  [
    'different fingerprint',
    served('0123'),
    [
      'cert_mismatch/0',
      'cert_mismatch/0',
      'cert_mismatch/0',
      'cert_mismatch/0',
      'cert_mismatch/0',
      'cert_mismatch/0',
      'cert_mismatch/0',
      'cert_mismatch/0',
    ],
  ],
  [
    'failure',
    failed,
    ['healthy/1', 'degraded/2', 'degraded/3', 'down/5', 'down/6', 'down/10', 'cert_mismatch/1', 'degraded/2'],
  ],
  [
    'acknowledge',
    acknowledge,
    [
      R,
      R,
      'degraded/2/ack',
      'degraded/4/ack',
      'down/5/ack',
      'down/9/ack',
      'cert_mismatch/0/ack',
      'cert_mismatch/1/ack',
    ],
  ],
];

describe('nextHealthState', () => {
  for (const [name, trigger, expected] of cases) {
    STATES.forEach((from, i) => {
      it(`${from.status}/${from.consecutiveFailures} + ${name} -> ${expected[i]}`, () => {
        expect(outcome(from, trigger)).toBe(expected[i]);
      });
    });
  }

  it('goes healthy -> degraded on the 2nd consecutive failure and down on the 5th (spec 3)', () => {
    let current = INITIAL_HEALTH_STATE;
    const seen: HealthStatus[] = [];
    for (let i = 0; i < 5; i++) {
      const result = nextHealthState(current, failed);
      if (!result.ok) throw new Error('refused');
      current = result.state;
      seen.push(current.status);
    }
    expect(seen).toEqual(['healthy', 'degraded', 'degraded', 'degraded', 'down']);
  });

  it('reports a change only when the status changes', () => {
    const first = nextHealthState(state('healthy', 0), failed);
    const second = nextHealthState(state('healthy', 1), failed);
    expect(first.ok && first.change).toBeNull();
    expect(second.ok && second.change).toEqual({ from: 'healthy', to: 'degraded' });
  });

  it('keeps an acknowledgement while the status stays and drops it when the status changes', () => {
    const stays = nextHealthState(state('degraded', 2, true), failed);
    const changes = nextHealthState(state('degraded', 4, true), failed);
    const recovers = nextHealthState(state('down', 5, true), served('abcdef'));
    expect(stays.ok && stays.state.acknowledged).toBe(true);
    expect(changes.ok && changes.state).toEqual(state('down', 5, false));
    expect(recovers.ok && recovers.state).toEqual(state('healthy', 0, false));
    expect(recovers.ok && recovers.change).toEqual({ from: 'down', to: 'healthy' });
  });

  it('refuses to acknowledge a healthy check with a stable code', () => {
    const result = nextHealthState(state('healthy', 1), acknowledge);
    expect(result).toMatchObject({ ok: false, code: 'health_check_not_alerting' });
  });
});

describe('normalizeFingerprint', () => {
  it('compares colon-separated uppercase and plain lowercase hex as equal', () => {
    expect(normalizeFingerprint('AB:CD:EF')).toBe(normalizeFingerprint('abcdef'));
  });
});
