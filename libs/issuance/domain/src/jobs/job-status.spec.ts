import { JOB_STATUSES, JobStatus } from '@certlane/contracts';
import { isFinalJobStatus, JobEvent, nextJobStatus } from './job-status';

const outcome = (from: JobStatus, event: JobEvent): string => {
  const result = nextJobStatus(from, event);
  return result.ok ? result.to : 'refused';
};

const table = (values: string[]): Record<JobStatus, string> =>
  Object.fromEntries(JOB_STATUSES.map((s, i) => [s, values[i]])) as Record<JobStatus, string>;

const R = 'refused';
//           Pending  AwaitingCSR  AwaitingApproval  Running  Completed  Failed  Cancelled
const cases: [string, JobEvent, Record<JobStatus, string>][] = [
  ['approve to Pending', { kind: 'approve', next: 'Pending' }, table([R, R, 'Pending', R, R, R, R])],
  [
    'approve to AwaitingCSR',
    { kind: 'approve', next: 'AwaitingCSR' },
    table([R, R, 'AwaitingCSR', R, R, R, R]),
  ],
  ['reject', { kind: 'reject' }, table([R, R, 'Cancelled', R, R, R, R])],
  ['cancel', { kind: 'cancel' }, table(['Cancelled', 'Cancelled', 'Cancelled', 'Cancelled', R, R, R])],
  ['start', { kind: 'start' }, table(['Running', R, R, R, R, R, R])],
  ['csr submitted', { kind: 'csr-submitted' }, table([R, 'Running', R, R, R, R, R])],
  ['complete', { kind: 'complete' }, table(['Completed', 'Completed', R, 'Completed', R, R, R])],
  ['fail', { kind: 'fail' }, table(['Failed', 'Failed', R, 'Failed', R, R, R])],
  ['report Running', { kind: 'report', status: 'Running' }, table(['Running', R, R, 'Running', R, R, R])],
  [
    'report Completed',
    { kind: 'report', status: 'Completed' },
    table(['Completed', 'Completed', R, 'Completed', R, R, R]),
  ],
  ['report Failed', { kind: 'report', status: 'Failed' }, table(['Failed', 'Failed', R, 'Failed', R, R, R])],
  ['retry to Pending', { kind: 'retry', next: 'Pending' }, table([R, R, R, R, R, 'Pending', R])],
  ['retry to AwaitingCSR', { kind: 'retry', next: 'AwaitingCSR' }, table([R, R, R, R, R, 'AwaitingCSR', R])],
  [
    'retry to AwaitingApproval',
    { kind: 'retry', next: 'AwaitingApproval' },
    table([R, R, R, R, R, 'AwaitingApproval', R]),
  ],
  ['release', { kind: 'release' }, table([R, R, R, 'Pending', R, R, R])],
];

describe('nextJobStatus', () => {
  for (const [name, event, expected] of cases) {
    describe(name, () => {
      it.each(JOB_STATUSES.map((s) => [s, expected[s]]))('from %s -> %s', (from, want) => {
        expect(outcome(from as JobStatus, event)).toBe(want);
      });
    });
  }

  it('names the status in a refusal', () => {
    expect(nextJobStatus('Completed', { kind: 'cancel' })).toEqual({
      ok: false,
      message: 'cannot cancel a job in status Completed: it has already finished',
    });
  });
});

describe('isFinalJobStatus', () => {
  it('is true exactly for Completed, Failed and Cancelled', () => {
    expect(JOB_STATUSES.filter(isFinalJobStatus)).toEqual(['Completed', 'Failed', 'Cancelled']);
  });
});
