import { ApiClient, OPERATIONS, OperationId } from '@certlane/api-client';
import { BulkInterrupted, IdsField, sendInBatches } from './bulk-batches';
import { confirm, CliIo, interactive } from './cli-io';
import { EXIT, OutcomeError, UsageError } from './exit-codes';
import { isDestructive } from './guards';
import { OutputFormat, pageOf, render } from './output/render';
import { PageWriter } from './output/page-writer';
import { bar, Progress } from './progress';
import { DEFAULT_WAIT_TIMEOUT_MS, waitForJob, waitOutcome } from './wait-for-job';

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
  /** How long `--wait` waits for the job (`--timeout`). */
  waitTimeoutMs?: number;
  /** A bulk operation's id-list field: more ids than one call takes are sent in batches. */
  idsField?: IdsField;
}

/** Largest page the API serves (spec 8). */
const MAX_PER_PAGE = 500;

type Call = (operationId: OperationId, input: unknown) => Promise<unknown>;

/**
 * Runs a JSON operation: confirmation, the call (or every page), the output. The local checks
 * (`checkBeforeSending`) come before, while no connection is needed yet.
 */
export async function runOperation(
  client: Pick<ApiClient, 'call'>,
  io: CliIo,
  request: OperationRequest,
): Promise<void> {
  const { operationId, query, body } = request;
  const operation = OPERATIONS[operationId];
  if (isDestructive(operationId, operation.method) && !request.yes && interactive(io)) {
    const what = [request.commandLine, ...Object.values(request.path)].join(' ');
    if (!(await confirm(io, `${what}: this cannot be undone. Go ahead?`))) throw new UsageError('aborted');
  }
  const call: Call = (id, input) => client.call(id, input as never);
  if (request.all) return allPages(call, io, request);
  const ids = request.idsField ? body?.[request.idsField.key] : undefined;
  const reply =
    request.idsField && Array.isArray(ids) && ids.length > request.idsField.batch
      ? await inBatches(call, io, request, request.idsField, ids as string[])
      : await call(operationId, { path: request.path, query, body });
  // A script reading `-o json|yaml` gets one document: with --wait, `{reply, job}` at the end.
  const oneDocument = request.wait && (request.output === 'json' || request.output === 'yaml');
  const jobId = (reply as { job_id?: unknown } | undefined)?.job_id;
  const id = operationId === 'getJob' ? request.path.id : typeof jobId === 'string' ? jobId : undefined;
  const failed = failedItems(reply);
  if (!oneDocument || failed || !id) io.stdout.write(render(reply, request.output));
  if (failed) throw failed;
  if (!request.wait) return;
  if (!id) throw new UsageError(`--wait: ${request.commandLine} started no job to wait for`);
  const timeoutMs = request.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const result = await waitForJob(client, io, id, { timeoutMs });
  io.stdout.write(render(oneDocument ? { reply, job: result.job } : result.job, request.output));
  const outcome = waitOutcome(id, result, timeoutMs);
  if (outcome) throw outcome;
}

/** A bulk answer that counts failed items (`total_failed`) exits non-zero once it is printed. */
export function failedItems(reply: unknown): OutcomeError | undefined {
  const failed = (reply as { total_failed?: unknown } | undefined)?.total_failed;
  return typeof failed === 'number' && failed > 0
    ? new OutcomeError(`${failed} of the items failed (see errors)`, EXIT.unsuccessful)
    : undefined;
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

/**
 * A bulk call over more ids than one call takes, in batches with progress; the answers added up.
 * When a later batch fails, the results of those already applied and the ids not sent are
 * printed before the failure ends the command.
 */
async function inBatches(
  call: Call,
  io: CliIo,
  request: OperationRequest,
  field: IdsField,
  ids: string[],
): Promise<unknown> {
  const progress = new Progress(io.stderr);
  const send = (batch: string[]) =>
    call(request.operationId, {
      path: request.path,
      query: request.query,
      body: { ...request.body, [field.key]: batch },
    }) as Promise<Record<string, unknown>>;
  try {
    const merged = await sendInBatches(ids, field, send, (sent) =>
      progress.update(bar(sent, ids.length), true),
    );
    progress.done();
    return merged;
  } catch (error) {
    progress.done();
    if (!(error instanceof BulkInterrupted)) throw error;
    io.stdout.write(render({ ...error.partial, ids_not_sent: error.notSent }, request.output));
    io.stderr.write(
      `${request.commandLine}: ${error.sent} of ${ids.length} ids were sent (results above) before a call failed; ids_not_sent lists the ${error.notSent.length} others\n`,
    );
    throw error.failure;
  }
}
