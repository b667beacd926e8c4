import { CertlaneConfig, CertlaneLogger } from '@certlane/platform';
import { JobRepository } from '../jobs/job.repository';
import { ServerIssuanceRunner } from './server-issuance.runner';

/**
 * The sweep's control flow, with the job queue in memory: it drains the queue batch after batch
 * while it claims work, stops when what is left is held elsewhere, and a call during a sweep makes
 * it read once more. Claiming and issuing against Postgres is covered by the int-specs
 * (certificates-under-ca, server-issuance-recovery).
 */
describe('server issuance sweep', () => {
  function runnerOver(
    queue: string[],
    claimable: (id: string) => boolean,
    afterRun: (runner: ServerIssuanceRunner) => Promise<void> = async () => undefined,
  ) {
    const reads: number[] = [];
    const jobs = {
      pendingIssuanceIds: jest.fn(async (limit: number) => {
        reads.push(queue.length);
        return queue.slice(0, limit);
      }),
    } as unknown as JobRepository;
    const config = { keygenMode: 'server' } as CertlaneConfig;
    const logger = { warn: jest.fn(), error: jest.fn() } as unknown as CertlaneLogger;
    const runner = new ServerIssuanceRunner(
      jobs,
      undefined as never,
      undefined as never,
      undefined as never,
      undefined as never,
      logger,
      undefined as never,
      config,
    );
    const ran: string[] = [];
    jest.spyOn(runner, 'run').mockImplementation(async (id: string) => {
      if (!claimable(id)) return false;
      ran.push(id);
      queue.splice(queue.indexOf(id), 1);
      await afterRun(runner);
      return true;
    });
    return { runner, ran, reads };
  }

  const ids = (count: number, prefix = 'job') =>
    Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);

  it('runs every pending job in one sweep, batch after batch (a bulk renewal of 45)', async () => {
    const queue = ids(45);
    const { runner, ran, reads } = runnerOver(queue, () => true);
    await runner.sweep();
    expect(ran).toEqual(ids(45));
    expect(queue).toEqual([]);
    expect(reads).toEqual([45, 25, 5]);
  });

  it('stops when a full batch is all held by other replicas', async () => {
    const queue = ids(30, 'held');
    const { runner, ran, reads } = runnerOver(queue, () => false);
    await runner.sweep();
    expect(ran).toEqual([]);
    expect(reads).toEqual([30]);
  });

  it('runs what it can claim and leaves what others hold', async () => {
    const queue = [...ids(20, 'held'), ...ids(5, 'mine')];
    const { runner, ran } = runnerOver(queue, (id) => id.startsWith('mine'));
    await runner.sweep();
    // The first batch is all held: the sweep stops there, and the interval's sweep tries again.
    expect(ran).toEqual([]);
    const mixed = [...ids(3, 'held'), ...ids(5, 'mine')];
    const second = runnerOver(mixed, (id) => id.startsWith('mine'));
    await second.runner.sweep();
    expect(second.ran).toEqual(ids(5, 'mine'));
  });

  it('reads once more when called while it sweeps, so work committed meanwhile is run', async () => {
    const queue = ids(2);
    let calledDuring = false;
    const { runner, ran } = runnerOver(
      queue,
      () => true,
      async (running) => {
        if (calledDuring) return;
        calledDuring = true;
        queue.push('late-000');
        await running.sweep();
      },
    );
    await runner.sweep();
    expect(ran).toEqual(['job-000', 'job-001', 'late-000']);
  });

  it('does nothing in agent key generation', async () => {
    const queue = ids(3);
    const { runner, reads } = runnerOver(queue, () => true);
    (runner as unknown as { config: CertlaneConfig }).config = { keygenMode: 'agent' } as CertlaneConfig;
    await runner.sweep();
    expect(reads).toEqual([]);
  });
});
