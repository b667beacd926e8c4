import { setTimeout as delay } from 'node:timers/promises';
import { ApiClient } from '@certlane/api-client';
import { CliIo } from './cli-io';
import { Progress } from './progress';

/** Job states after which nothing more happens to the job. */
const FINAL = new Set(['Completed', 'Failed', 'Cancelled']);
const POLL_MS = 1_000;

/** Polls the job until it reaches a final state, showing its state on a terminal. */
export async function waitForJob(client: ApiClient, io: CliIo, jobId: string): Promise<unknown> {
  const progress = new Progress(io.stderr);
  const started = Date.now();
  for (;;) {
    const job = await client.call('getJob', { path: { id: jobId } });
    const status = String((job as { status?: unknown }).status);
    progress.update(`job ${jobId}: ${status} (${Math.round((Date.now() - started) / 1000)} s)`, true);
    if (FINAL.has(status)) {
      progress.done(`job ${jobId}: ${status}`);
      return job;
    }
    await delay(POLL_MS);
  }
}
