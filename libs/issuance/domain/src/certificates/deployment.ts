import { CertificateStatus } from '@certlane/contracts';

/** Statuses whose certificate must not be shipped anywhere any more (spec 4.2 deploy; ADR 0042). */
const NOT_DEPLOYABLE: ReadonlySet<CertificateStatus> = new Set(['Revoked', 'Archived', 'Expired']);

/** What the deploy rule needs to know about the target (deployment-dispatch owns targets). */
export interface DeployTargetFacts {
  id: string;
  /** The agent that runs the target; null for an agentless kind without a proxy agent. */
  agent_id: string | null;
  retired: boolean;
}

export type DeployRefusal =
  | { refusal: 'certificate_not_deployable'; message: string }
  | { refusal: 'target_retired'; message: string }
  | { refusal: 'target_agent_mismatch'; message: string };

/**
 * Why a deployment of the certificate to the target (null: no target named) is refused, or null.
 * In this order: a Revoked, Archived or Expired certificate; a retired target; a target run by an
 * agent other than the certificate's (its job would reach the certificate's agent, which cannot
 * deploy to it).
 */
export function deployRefusal(
  certificate: { status: CertificateStatus; agent_id: string },
  target: DeployTargetFacts | null,
): DeployRefusal | null {
  if (NOT_DEPLOYABLE.has(certificate.status)) {
    return {
      refusal: 'certificate_not_deployable',
      message: `a certificate in status ${certificate.status} cannot be deployed`,
    };
  }
  if (!target) return null;
  if (target.retired) {
    return { refusal: 'target_retired', message: `target ${JSON.stringify(target.id)} is retired` };
  }
  if (target.agent_id && certificate.agent_id && target.agent_id !== certificate.agent_id) {
    return {
      refusal: 'target_agent_mismatch',
      message: `target ${JSON.stringify(target.id)} is run by agent ${JSON.stringify(target.agent_id)}, not by the certificate's agent ${JSON.stringify(certificate.agent_id)}`,
    };
  }
  return null;
}

/**
 * The agent a deployment job is for: the target's agent when it names one (a certificate without
 * an agent, as in server key generation, may still be deployed by the target's agent), otherwise
 * the certificate's ('' for none).
 */
export function deploymentAgent(certificate: { agent_id: string }, target: DeployTargetFacts | null): string {
  return target?.agent_id || certificate.agent_id;
}
