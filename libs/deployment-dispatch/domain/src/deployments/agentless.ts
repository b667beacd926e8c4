import type { JobCreated, TargetType, VerificationResult } from '@certlane/contracts';

/** The target facts the decision needs. */
export interface AgentlessTargetFacts {
  kind: TargetType;
  agent_id: string | null;
  retired: boolean;
}

/**
 * Whether deployment-dispatch runs this job itself (ADR 0031): a Pending Deployment job whose
 * target is of kind `ssh` and names no (proxy) agent. Anything else is an agent's, or no one's.
 */
export function runsAgentless(
  event: Pick<JobCreated, 'type' | 'status' | 'target_id'>,
  target: AgentlessTargetFacts | null,
): boolean {
  return (
    event.type === 'Deployment' &&
    event.status === 'Pending' &&
    event.target_id !== '' &&
    target !== null &&
    !target.retired &&
    target.kind === 'ssh' &&
    !target.agent_id
  );
}

/** What the deploy engine reported, as far as the verification is concerned. */
export interface DeploymentOutcome {
  ok: boolean;
  steps: readonly { step: string; ok: boolean; detail?: string }[];
  servedFingerprintSha256?: string;
  error?: string;
}

export interface VerificationRecord {
  endpoint: string;
  result: VerificationResult;
  served_fingerprint_sha256: string;
  error: string;
}

/**
 * The verification a deployment leaves on its job, or null when nothing was checked (no endpoint,
 * or the deployment stopped before verifying). The first verify step is the one that counts: a
 * reload after a rollback does not verify again.
 */
export function verificationRecord(
  endpoint: string | null | undefined,
  expectedFingerprint: string,
  outcome: DeploymentOutcome,
): VerificationRecord | null {
  if (!endpoint) return null;
  const verify = outcome.steps.find((step) => step.step === 'verify');
  if (!verify) return null;
  const served = (outcome.servedFingerprintSha256 ?? '').toLowerCase();
  if (verify.ok) {
    return { endpoint, result: 'verified', served_fingerprint_sha256: served, error: '' };
  }
  if (served && served !== expectedFingerprint.toLowerCase()) {
    return { endpoint, result: 'mismatch', served_fingerprint_sha256: served, error: verify.detail ?? '' };
  }
  return { endpoint, result: 'unreachable', served_fingerprint_sha256: served, error: verify.detail ?? '' };
}

/** The steps in words for the audit record: `write ok; swap ok; validate failed (exit code 1)`. */
export function stepsSummary(steps: DeploymentOutcome['steps']): string {
  return steps
    .map(
      (step) =>
        `${step.step} ${step.ok ? 'ok' : 'failed'}${step.ok || !step.detail ? '' : ` (${step.detail})`}`,
    )
    .join('; ')
    .slice(0, 8000);
}
