import { ApiClient, OPERATIONS, OperationId } from '@certlane/api-client';
import { confirm, CliIo, interactive } from './cli-io';
import { UsageError } from './exit-codes';
import { checkBeforeSending, isDestructive } from './guards';
import { OutputFormat, pageOf, render } from './output/render';
import { PageWriter } from './output/page-writer';
import { bar, Progress } from './progress';
import { waitForJob } from './wait-for-job';

/** What one command line asks of one operation. */
export interface OperationRequest {
  operationId: OperationId;
  commandLine: string;
  path: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
  output: OutputFormat;
  all: boolean;
  yes: boolean;
  wait: boolean;
}

/** Largest page the API serves (spec 8). */
const MAX_PER_PAGE = 500;
/** Ids per call when a bulk command names many, so progress can be shown between calls. */
export const BULK_BATCH = 500;

type Call = (operationId: OperationId, input: unknown) => Promise<unknown>;

/** Runs a JSON operation: local checks, confirmation, the call (or every page), the output. */
export async function runOperation(client: ApiClient, io: CliIo, request: OperationRequest): Promise<void> {
  const { operationId, query, body } = request;
  const operation = OPERATIONS[operationId];
  checkBeforeSending(operationId, request.commandLine, query, body);
  if (isDestructive(operationId, operation.method) && !request.yes && interactive(io)) {
    const what = [request.commandLine, ...Object.values(request.path)].join(' ');
    if (!(await confirm(io, `${what}: this cannot be undone. Go ahead?`))) throw new UsageError('aborted');
  }
  const call: Call = (id, input) => client.call(id, input as never);
  if (request.all) return allPages(call, io, request);
  const ids = body?.certificate_ids;
  const reply =
    Array.isArray(ids) && ids.length > BULK_BATCH && operationId.startsWith('bulk')
      ? await inBatches(call, io, request, ids as string[])
      : await call(operationId, { path: request.path, query, body });
  io.stdout.write(render(reply, request.output));
  const jobId = (reply as { job_id?: unknown } | undefined)?.job_id;
  if (request.wait) {
    const id = operationId === 'getJob' ? request.path.id : typeof jobId === 'string' ? jobId : undefined;
    if (!id) throw new UsageError(`--wait: ${request.commandLine} started no job to wait for`);
    const job = await waitForJob(client, io, id);
    io.stdout.write(render(job, request.output));
  }
}

/** `--all`: every page in turn, written as it arrives; the next page is asked for while one is written. */
async function allPages(call: Call, io: CliIo, request: OperationRequest): Promise<void> {
  if (!OPERATIONS[request.operationId].queryParams.includes('page' as never))
    throw new UsageError(`--all: ${request.commandLine} is not a paginated list`);
  const perPage = Number(request.query.per_page ?? MAX_PER_PAGE);
  const fetchPage = (page: number) =>
    call(request.operationId, { path: request.path, query: { ...request.query, page, per_page: perPage } });
  const writer = new PageWriter(io.stdout, request.output);
  const progress = new Progress(io.stderr);
  let page = Number(request.query.page ?? 1);
  let pending = fetchPage(page);
  let seen = 0;
  let total = 0;
  for (;;) {
    const envelope = pageOf(await pending);
    if (!envelope) throw new Error(`${request.commandLine} did not answer a page envelope`);
    total = envelope.total;
    const more = envelope.data.length === perPage && seen + envelope.data.length < total;
    if (more) pending = fetchPage(++page);
    await writer.page(envelope.data);
    seen += envelope.data.length;
    progress.update(bar(seen, total));
    if (!more) break;
  }
  progress.done();
  await writer.end(total);
}

const SUMMED = /^total_/;

/** A bulk call over many ids, `BULK_BATCH` at a time with progress; the results added up. */
async function inBatches(call: Call, io: CliIo, request: OperationRequest, ids: string[]): Promise<unknown> {
  const progress = new Progress(io.stderr);
  const merged: Record<string, unknown> = {};
  for (let start = 0; start < ids.length; start += BULK_BATCH) {
    const batch = ids.slice(start, start + BULK_BATCH);
    const reply = (await call(request.operationId, {
      path: request.path,
      query: request.query,
      body: { ...request.body, certificate_ids: batch },
    })) as Record<string, unknown>;
    for (const [key, value] of Object.entries(reply)) {
      if (typeof value === 'number' && SUMMED.test(key)) merged[key] = ((merged[key] as number) ?? 0) + value;
      else if (Array.isArray(value)) merged[key] = [...((merged[key] as unknown[]) ?? []), ...value];
      else if (typeof value === 'boolean') merged[key] = Boolean(merged[key]) || value;
      else merged[key] = value;
    }
    progress.update(bar(Math.min(start + BULK_BATCH, ids.length), ids.length), true);
  }
  progress.done();
  return merged;
}
