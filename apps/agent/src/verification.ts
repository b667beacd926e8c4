import type { AgentVerificationReport } from '@certlane/contracts';
import type { DeploymentResult } from '@certlane/connectors';

/** The server keeps at most this much of a verification error (ReportAgentJobStatusBody). */
const ERROR_LIMIT = 2000;

/**
 * What the connector's verify step saw, for the status report (ADR 0032); undefined when nothing
 * was checked (no endpoint, or the deployment failed before verifying). `verified` when the
 * endpoint served the deployed leaf; `mismatch` when it served another one (at any attempt);
 * `unreachable` when no leaf could be read. The server compares with the version itself.
 */
export function verificationOf(
  result: DeploymentResult,
  endpoint: string | undefined,
): AgentVerificationReport | undefined {
  const step = result.steps.find((s) => s.step === 'verify');
  if (!endpoint || !step) return undefined;
  const served = result.servedFingerprintSha256;
  if (step.ok) {
    // A connector that skipped verification says so in an ok step without a served leaf.
    return served ? { endpoint, served_fingerprint_sha256: served, result: 'verified' } : undefined;
  }
  if (served) return { endpoint, served_fingerprint_sha256: served, result: 'mismatch' };
  return {
    endpoint,
    result: 'unreachable',
    error: (step.detail || 'the endpoint could not be checked').slice(0, ERROR_LIMIT),
  };
}
