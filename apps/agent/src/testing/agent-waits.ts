import type { JobDto } from '@certlane/contracts';
import { eventually } from '@certlane/testing';
import { Api, json } from './admin-api';

/** Waits until the server lists the agent Online. */
export async function agentOnline(api: Api, agentId: string, output: () => string): Promise<void> {
  await eventually(
    async () => json<{ status: string }>(await api('GET', `/api/v1/agents/${agentId}`)).status === 'Online',
    `the agent came online (agent output: ${output()})`,
  );
}

/** Waits until the job is Completed; a Failed job ends the wait at once with its last error. */
export async function jobCompleted(
  job: (id: string) => Promise<JobDto>,
  id: string,
  what: string,
  output: () => string,
): Promise<void> {
  await eventually(async () => {
    const { status, last_error } = await job(id);
    if (status === 'Failed') throw new Error(`${what} failed: ${last_error}`);
    return status === 'Completed';
  }, `${what} completed (agent output: ${output()})`);
}
