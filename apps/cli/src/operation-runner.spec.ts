import { PassThrough } from 'node:stream';
import { OperationId } from '@certlane/api-client';
import { CliIo } from './cli-io';
import { EXIT, exitCodeOf } from './exit-codes';
import { OperationRequest, runOperation } from './operation-runner';

function io() {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const stderr = new PassThrough();
  let errors = '';
  stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const value: CliIo = {
    stdout,
    stderr: stderr as unknown as CliIo['stderr'],
    stdin: new PassThrough(),
    env: {},
  };
  return { io: value, stdout: () => text, stderr: () => errors };
}

const request = (operationId: OperationId, extra: Partial<OperationRequest> = {}): OperationRequest => ({
  operationId,
  commandLine: 'certlane x',
  path: {},
  query: {},
  body: undefined,
  output: 'json',
  all: false,
  yes: true,
  wait: false,
  ...extra,
});

/** What `runOperation` rejected with (nothing when it resolved). */
const failureOf = (running: Promise<void>) =>
  running.then(
    () => undefined,
    (error: unknown) => error,
  );

describe(runOperation.name, () => {
  it('prints a bulk answer with failed items, then exits unsuccessful', async () => {
    const out = io();
    const client = {
      call: async () => ({ total_matched: 1, total_revoked: 0, total_failed: 1, errors: [] }),
    };
    const error = await failureOf(
      runOperation(
        client as never,
        out.io,
        request('bulkRevokeCertificates', { body: { reason: 'superseded' } }),
      ),
    );
    expect(exitCodeOf(error)).toBe(EXIT.unsuccessful);
    expect(JSON.parse(out.stdout())).toMatchObject({ total_failed: 1 });
  });

  it('exits 0 for a bulk answer without failed items', async () => {
    const client = {
      call: async () => ({ total_matched: 1, total_revoked: 1, total_failed: 0, errors: [] }),
    };
    expect(await failureOf(runOperation(client as never, io().io, request('bulkRevokeCertificates')))).toBe(
      undefined,
    );
  });

  it('prints what the applied batches did and the ids not sent when a later batch fails', async () => {
    const out = io();
    const refused = Object.assign(new Error('down'), { status: 503 });
    let calls = 0;
    const client = {
      call: async (_id: string, input: { body: { certificate_ids: string[] } }) => {
        if (++calls === 2) throw refused;
        return { total_revoked: input.body.certificate_ids.length, total_failed: 0, errors: [] };
      },
    };
    const error = await failureOf(
      runOperation(
        client as never,
        out.io,
        request('bulkRevokeCertificates', {
          body: { reason: 'superseded', certificate_ids: ['a', 'b', 'c', 'd', 'e'] },
          idsField: { key: 'certificate_ids', batch: 2 },
        }),
      ),
    );
    expect(error).toBe(refused);
    expect(JSON.parse(out.stdout())).toEqual({
      total_revoked: 2,
      total_failed: 0,
      errors: [],
      ids_not_sent: ['c', 'd', 'e'],
    });
    expect(out.stderr()).toContain('2 of 5 ids were sent');
  });

  it.each([
    ['Completed', undefined],
    ['Failed', EXIT.unsuccessful],
    ['Cancelled', EXIT.unsuccessful],
  ])('--wait on a job that ends %s exits %p', async (status, code) => {
    const out = io();
    const client = { call: async () => ({ id: 'job-1', status }) };
    const error = await failureOf(
      runOperation(client as never, out.io, request('getJob', { path: { id: 'job-1' }, wait: true })),
    );
    expect(error === undefined ? undefined : exitCodeOf(error)).toBe(code);
  });

  it('--wait -o json prints one document, the reply and the job it waited for', async () => {
    const out = io();
    const client = {
      call: async (id: string) =>
        id === 'renewCertificate'
          ? { status: 'accepted', job_id: 'job-7' }
          : { id: 'job-7', status: 'Completed' },
    };
    await runOperation(
      client as never,
      out.io,
      request('renewCertificate', { path: { id: 'web-1' }, wait: true }),
    );
    expect(JSON.parse(out.stdout())).toEqual({
      reply: { status: 'accepted', job_id: 'job-7' },
      job: { id: 'job-7', status: 'Completed' },
    });
  });

  it('--wait gives up at --timeout on a job still held, exiting timed out with its status', async () => {
    const client = { call: async () => ({ id: 'job-1', status: 'AwaitingApproval' }) };
    const error = await failureOf(
      runOperation(
        client as never,
        io().io,
        request('getJob', { path: { id: 'job-1' }, wait: true, waitTimeoutMs: 0 }),
      ),
    );
    expect(exitCodeOf(error)).toBe(EXIT.timedOut);
    expect((error as Error).message).toContain('still AwaitingApproval');
  });
});
