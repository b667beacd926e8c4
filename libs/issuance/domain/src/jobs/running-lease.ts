import { JobType } from '@certlane/contracts';
import { JobEvent } from './job-status';

/** How long a job may stay Running without a change before its worker counts as lost. */
export interface RunningLimits {
  /** SERVICE_JOB_RUNNING_TIMEOUT: any job (an agent's, an agentless deployment's). */
  runningTimeoutMs: number;
  /** SERVICE_JOB_SERVER_LEASE: issuance and renewal the service runs itself (server key generation). */
  serverLeaseMs: number;
}

/** The job fields the lease rules read. */
export interface LeasedJob {
  type: JobType;
  attempts: number;
  max_attempts: number;
}

/**
 * Whether the service itself runs this job (ADR 0024): issuance and renewal under server key
 * generation, which take seconds; everything else waits on an agent or a remote host.
 */
export function isServerRunWork(type: JobType, keygenMode: 'agent' | 'server'): boolean {
  return keygenMode === 'server' && (type === 'Issuance' || type === 'Renewal');
}

/** The Running lease of a job: the short server lease for server-run work, never above the timeout. */
export function runningLeaseMs(type: JobType, keygenMode: 'agent' | 'server', limits: RunningLimits): number {
  return isServerRunWork(type, keygenMode)
    ? Math.min(limits.serverLeaseMs, limits.runningTimeoutMs)
    : limits.runningTimeoutMs;
}

/**
 * What a job whose lease ran out becomes (ADR 0045): server-run work is queued again while
 * attempts remain (a lost run left nothing behind, since the serial is recorded only with its
 * version, so running it again is safe); anything else, or work out of attempts, fails.
 */
export function lostWorkerEvent(job: LeasedJob, keygenMode: 'agent' | 'server'): JobEvent {
  return isServerRunWork(job.type, keygenMode) && job.attempts < job.max_attempts
    ? { kind: 'release' }
    : { kind: 'fail' };
}
