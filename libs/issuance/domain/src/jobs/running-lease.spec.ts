import { isServerRunWork, lostWorkerEvent, runningLeaseMs } from './running-lease';

const limits = { runningTimeoutMs: 30 * 60_000, serverLeaseMs: 2 * 60_000 };

describe('running lease', () => {
  it('counts only issuance and renewal under server key generation as server-run work', () => {
    expect(isServerRunWork('Issuance', 'server')).toBe(true);
    expect(isServerRunWork('Renewal', 'server')).toBe(true);
    expect(isServerRunWork('Deployment', 'server')).toBe(false);
    expect(isServerRunWork('Issuance', 'agent')).toBe(false);
  });

  it('gives server-run work the short lease and everything else the running timeout', () => {
    expect(runningLeaseMs('Issuance', 'server', limits)).toBe(120_000);
    expect(runningLeaseMs('Deployment', 'server', limits)).toBe(1_800_000);
    expect(runningLeaseMs('Renewal', 'agent', limits)).toBe(1_800_000);
  });

  it('never gives server-run work longer than the running timeout', () => {
    expect(runningLeaseMs('Issuance', 'server', { runningTimeoutMs: 30_000, serverLeaseMs: 120_000 })).toBe(
      30_000,
    );
  });

  it('queues lost server-run work again while attempts remain, and fails it after', () => {
    expect(lostWorkerEvent({ type: 'Issuance', attempts: 1, max_attempts: 3 }, 'server')).toEqual({
      kind: 'release',
    });
    expect(lostWorkerEvent({ type: 'Renewal', attempts: 3, max_attempts: 3 }, 'server')).toEqual({
      kind: 'fail',
    });
  });

  it('fails a lost agent job or deployment as before', () => {
    expect(lostWorkerEvent({ type: 'Issuance', attempts: 1, max_attempts: 3 }, 'agent')).toEqual({
      kind: 'fail',
    });
    expect(lostWorkerEvent({ type: 'Deployment', attempts: 1, max_attempts: 3 }, 'server')).toEqual({
      kind: 'fail',
    });
  });
});
