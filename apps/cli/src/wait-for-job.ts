import { setTimeout as delay } from 'node:timers/promises';
import { ApiClient } from '@certlane/api-client';
import { CliIo } from './cli-io';
import { formatDuration } from './duration';
import { EXIT, OutcomeError } from './exit-codes';
import { Progress } from './progress';

/** Job states after which nothing more happens to the job. */
const FINAL = new Set(['Completed', 'Failed', 'Cancelled']);
const POLL_MS = 1_000;
/** `--timeout` unless given: long enough for an issuance, short enough that a held job is noticed. */
export const DEFAULT_WAIT_TIMEOUT_MS = 10 * 60_000;

export interface WaitOptions {
  timeoutMs: number;
  pollMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<unknown>;
}

/** The job as last read, and whether it reached a final state before the timeout. */
export interface WaitResult {
  job: unknown;
  status: string;
  finished: boolean;
}

/**
 * Polls the job until it reaches a final state or `timeoutMs` has passed (a job held
 * AwaitingApproval may wait for a person for days), showing its state on a terminal.
 */
export async function waitForJob(
  client: Pick<ApiClient, 'call'>,
  io: CliIo,
  jobId: string,
  { timeoutMs, pollMs = POLL_MS, now = Date.now, sleep = delay }: WaitOptions,
): Promise<WaitResult> {
  const progress = new Progress(io.stderr);
  const started = now();
  for (;;) {
    const job = await client.call('getJob', { path: { id: jobId } });
    const status = String((job as { status?: unknown }).status);
    const elapsed = now() - started;
    progress.update(`job ${jobId}: ${status} (${Math.round(elapsed / 1000)} s)`, true);
    const finished = FINAL.has(status);
    if (finished || elapsed >= timeoutMs) {
      progress.done(`job ${jobId}: ${status}`);
      return { job, status, finished };
    }
    await sleep(Math.min(pollMs, timeoutMs - elapsed));
  }
}

/** Why `--wait` exits non-zero, if it does: the job did not complete, or not in time. */
export function waitOutcome(jobId: string, result: WaitResult, timeoutMs: number): OutcomeError | undefined {
  if (!result.finished)
    return new OutcomeError(
      `job ${jobId} is still ${result.status} after ${formatDuration(timeoutMs)} (--timeout); it goes on without the CLI`,
      EXIT.timedOut,
    );
  if (result.status !== 'Completed')
    return new OutcomeError(`job ${jobId} ended ${result.status}`, EXIT.unsuccessful);
  return undefined;
}
