import { CertificateStatus, JobStatus, JobType } from '@certlane/contracts';
import { statusByValidity } from './certificate-status';

/** Who generates a managed certificate's private key (SERVICE_KEYGEN_MODE, ADR 0024). */
export type KeyGeneration = 'agent' | 'server';

/** Job types whose work is to produce a new certificate version. */
export function producesVersion(type: JobType): boolean {
  return type === 'Issuance' || type === 'Renewal';
}

/**
 * The status a job starts in (spec section 3: key-generation-mode-aware): an issuance or renewal
 * waits for the agent's CSR in agent mode; everything else (and server-mode issuance) is Pending.
 * Approval gates, when a profile asks for one, come before this.
 */
export function initialJobStatus(
  type: JobType,
  mode: KeyGeneration,
): Extract<JobStatus, 'Pending' | 'AwaitingCSR'> {
  return producesVersion(type) && mode === 'agent' ? 'AwaitingCSR' : 'Pending';
}

/** What the dates of the current version say; Pending while there is no version. */
export function statusByDates(
  notAfter: Date | null,
  now: Date,
  renewalWindowDays: number,
): CertificateStatus {
  return notAfter ? statusByValidity(notAfter, now, renewalWindowDays) : 'Pending';
}

/**
 * Why a job of this type cannot be created for a certificate with this agent (`''`: none), or
 * null: an issuance or renewal in agent key generation needs an agent to make the key and send
 * the CSR; without one its AwaitingCSR job would wait for nobody (ADR 0042).
 */
export function keyGenerationRefusal(type: JobType, mode: KeyGeneration, agentId: string): string | null {
  if (!producesVersion(type) || mode !== 'agent' || agentId !== '') return null;
  return (
    'agent key generation (SERVICE_KEYGEN_MODE=agent) needs an agent to generate the key: ' +
    'give the certificate an agent_id, or import the certificate'
  );
}
