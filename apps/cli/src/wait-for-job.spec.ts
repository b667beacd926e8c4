import { PassThrough } from 'node:stream';
import { CliIo } from './cli-io';
import { EXIT } from './exit-codes';
import { waitForJob, waitOutcome } from './wait-for-job';

const io = (): CliIo => ({
  stdout: new PassThrough(),
  stderr: new PassThrough() as unknown as CliIo['stderr'],
  stdin: new PassThrough(),
  env: {},
});

/** A job answering `statuses` in turn (the last one for ever), on a clock the polls advance. */
function fakeJob(statuses: string[]) {
  let clock = 0;
  let polls = 0;
  const client = {
    call: jest.fn(async () => ({ id: 'job-1', status: statuses[Math.min(polls++, statuses.length - 1)] })),
  };
  const options = {
    now: () => clock,
    sleep: async (ms: number) => {
      clock += ms;
    },
  };
  return { client: client as never, options, polls: () => polls };
}

describe(waitForJob.name, () => {
  it('polls until the job is final and answers it', async () => {
    const { client, options, polls } = fakeJob(['Pending', 'Running', 'Completed']);
    const result = await waitForJob(client, io(), 'job-1', { ...options, timeoutMs: 60_000 });
    expect(result).toMatchObject({ status: 'Completed', finished: true });
    expect(polls()).toBe(3);
  });

  it('gives up at the timeout on a job held AwaitingApproval, answering it unfinished', async () => {
    const { client, options, polls } = fakeJob(['AwaitingApproval']);
    const result = await waitForJob(client, io(), 'job-1', { ...options, timeoutMs: 5_000, pollMs: 1_000 });
    expect(result).toMatchObject({ status: 'AwaitingApproval', finished: false });
    expect(polls()).toBe(6);
  });

  it('with no time at all reads the job once', async () => {
    const { client, options, polls } = fakeJob(['Running']);
    expect(await waitForJob(client, io(), 'job-1', { ...options, timeoutMs: 0 })).toMatchObject({
      finished: false,
    });
    expect(polls()).toBe(1);
  });
});

describe(waitOutcome.name, () => {
  const result = (status: string, finished = true) => ({ job: { status }, status, finished });

  it('is nothing for a Completed job', () => {
    expect(waitOutcome('job-1', result('Completed'), 1_000)).toBeUndefined();
  });

  it.each(['Failed', 'Cancelled'])('exits unsuccessful for a job that ended %s', (status) => {
    const outcome = waitOutcome('job-1', result(status), 1_000);
    expect(outcome?.exitCode).toBe(EXIT.unsuccessful);
    expect(outcome?.message).toBe(`job job-1 ended ${status}`);
  });

  it('exits timed out for an unfinished job, naming its status and the timeout', () => {
    const outcome = waitOutcome('job-1', result('AwaitingApproval', false), 600_000);
    expect(outcome?.exitCode).toBe(EXIT.timedOut);
    expect(outcome?.message).toContain('still AwaitingApproval after 10 min');
  });
});
