import { JobStatus } from '@certlane/contracts';

export const FINAL_JOB_STATUSES: ReadonlySet<JobStatus> = new Set(['Completed', 'Failed', 'Cancelled']);

export function isFinalJobStatus(status: JobStatus): boolean {
  return FINAL_JOB_STATUSES.has(status);
}

/** Everything that can happen to a job (spec section 3, note J; ADR 0024). */
export type JobEvent =
  /** `next` is Pending, or AwaitingCSR when an agent must generate the key. */
  | { kind: 'approve'; next: 'Pending' | 'AwaitingCSR' }
  | { kind: 'reject' }
  | { kind: 'cancel' }
  | { kind: 'start' }
  | { kind: 'csr-submitted' }
  | { kind: 'complete' }
  | { kind: 'fail' }
  /** An agent's status report; unknown strings never reach here (validated as DTO). */
  | { kind: 'report'; status: 'Running' | 'Completed' | 'Failed' }
  /**
   * The renewal loop retrying a failed job while attempts remain; AwaitingApproval when the
   * certificate's profile requires an approval the job never had.
   */
  | { kind: 'retry'; next: 'Pending' | 'AwaitingCSR' | 'AwaitingApproval' }
  /** The Running lease of server-run work ran out (its worker was lost): queue it again. */
  | { kind: 'release' };

export type JobTransition = { ok: true; to: JobStatus } | { ok: false; message: string };

const OPEN_WORK: ReadonlySet<JobStatus> = new Set(['Pending', 'AwaitingCSR', 'Running']);

/** The job state machine: pure, total over every (status, event) pair. */
export function nextJobStatus(from: JobStatus, event: JobEvent): JobTransition {
  const refuse = (why: string): JobTransition => ({
    ok: false,
    message: `cannot ${event.kind} a job in status ${from}: ${why}`,
  });
  switch (event.kind) {
    case 'approve':
      return from === 'AwaitingApproval'
        ? { ok: true, to: event.next }
        : refuse('it is not awaiting approval');
    case 'reject':
      return from === 'AwaitingApproval'
        ? { ok: true, to: 'Cancelled' }
        : refuse('it is not awaiting approval');
    case 'cancel':
      return isFinalJobStatus(from) ? refuse('it has already finished') : { ok: true, to: 'Cancelled' };
    case 'start':
      return from === 'Pending' ? { ok: true, to: 'Running' } : refuse('only a pending job starts');
    case 'csr-submitted':
      return from === 'AwaitingCSR' ? { ok: true, to: 'Running' } : refuse('it is not awaiting a CSR');
    case 'complete':
    case 'fail':
      return OPEN_WORK.has(from)
        ? { ok: true, to: event.kind === 'complete' ? 'Completed' : 'Failed' }
        : refuse('it is not in progress');
    case 'report':
      if (!OPEN_WORK.has(from)) return refuse('it is not in progress');
      if (event.status === 'Running' && from === 'AwaitingCSR') return refuse('submit the CSR first');
      return { ok: true, to: event.status };
    case 'retry':
      return from === 'Failed' ? { ok: true, to: event.next } : refuse('only a failed job is retried');
    case 'release':
      return from === 'Running' ? { ok: true, to: 'Pending' } : refuse('only a running job is released');
  }
}
