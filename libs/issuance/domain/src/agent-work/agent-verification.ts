import type { AgentReportStatus, JobType, VerificationResult } from '@certlane/contracts';

/** What an agent says its connector saw at the endpoint (the `verification` of a status report). */
export interface AgentVerificationClaim {
  endpoint: string;
  served_fingerprint_sha256?: string;
  result: VerificationResult;
  error?: string;
}

/** The job_verifications row an agent's claim becomes (the job and certificate ids aside). */
export interface AgentVerificationRecord {
  endpoint: string;
  result: VerificationResult;
  expected_fingerprint_sha256: string;
  served_fingerprint_sha256: string;
  error: string;
}

export type AgentVerificationCheck =
  { ok: true; record: AgentVerificationRecord } | { ok: false; field: string; message: string };

/** Lower-case hex without separators, the form versions store. */
export const normalFingerprint = (fingerprint: string): string => fingerprint.replace(/:/g, '').toLowerCase();

/**
 * Checks an agent's verification against the job (ADR 0032) and turns it into the row to keep.
 * Only a deployment's outcome (Completed or Failed) carries one. The expected fingerprint is the
 * job's version's, never the agent's: `verified` must name that leaf, `mismatch` another one, and
 * `unreachable` says why nothing could be read. A claim that contradicts the version is refused
 * rather than corrected, since an agent that reports it is not to be believed on the rest.
 */
export function agentVerificationRecord(
  claim: AgentVerificationClaim,
  job: { type: JobType; reported: AgentReportStatus; expectedFingerprintSha256: string },
): AgentVerificationCheck {
  const refuse = (field: string, message: string): AgentVerificationCheck => ({ ok: false, field, message });
  if (job.type !== 'Deployment') {
    return refuse(
      'verification',
      `a ${job.type} job deploys nothing; only a deployment carries a verification`,
    );
  }
  if (job.reported === 'Running') {
    return refuse(
      'verification',
      'a verification comes with the deployment outcome (Completed or Failed), not Running',
    );
  }
  const expected = normalFingerprint(job.expectedFingerprintSha256);
  const served = normalFingerprint(claim.served_fingerprint_sha256 ?? '');
  const record = (error = ''): AgentVerificationCheck => ({
    ok: true,
    record: {
      endpoint: claim.endpoint,
      result: claim.result,
      expected_fingerprint_sha256: expected,
      served_fingerprint_sha256: served,
      error,
    },
  });
  switch (claim.result) {
    case 'verified':
    case 'mismatch':
      if (!served) {
        return refuse(
          'verification.served_fingerprint_sha256',
          `a ${claim.result} verification names the leaf the endpoint served`,
        );
      }
      if ((served === expected) !== (claim.result === 'verified')) {
        return refuse(
          'verification.result',
          claim.result === 'verified'
            ? `the endpoint served ${served}, not the deployed version's ${expected}: that is not verified`
            : `the endpoint served the deployed version's leaf ${expected}: that is verified, not a mismatch`,
        );
      }
      return record(claim.error ?? '');
    case 'unreachable':
      return record(claim.error?.trim() || 'the endpoint could not be checked');
  }
}
