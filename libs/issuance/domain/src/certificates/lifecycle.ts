import { CertificateSource, CertificateStatus, JobStatus, JobType } from '@certlane/contracts';
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

/** Why a new version cannot be made for a certificate: the error code, the field and a message. */
export interface VersionJobRefusal {
  code: 'certificate_not_renewable' | 'keygen_agent_missing' | 'not_implemented';
  field: 'issuer_id' | 'agent_id';
  message: string;
}

/**
 * Why an issuance or renewal job cannot be created for this certificate, or null. A certificate
 * without an issuer (imported from a CA Certlane does not hold, ADR 0043) has nobody to sign its
 * next version; a renewal of one an ACME, EST or SCEP client enrolled and no agent holds is its
 * client's (`renewedByTheLoop`, ADR 0028 amendment, eighth stop): a version Certlane made would
 * reach nobody; in agent key generation one without an agent has nobody to make its key (ADR 0042).
 * An issuer of a kind this build has no connector for (`issuerKindWithoutConnector`: its kind, or
 * null when it has one) cannot sign it: 501 up front rather than a job that can only fail
 * (ADR 0022, 0046).
 * The one rule for single and bulk renewals and, as SQL, for the renewal loop
 * (RenewalRepository: `renewableCondition` and `loopRenewsCondition`).
 */
export function versionJobRefusal(
  type: JobType,
  mode: KeyGeneration,
  certificate: { id: string; issuer_id: string | null; agent_id: string; source: string },
  issuerKindWithoutConnector: string | null = null,
): VersionJobRefusal | null {
  if (!producesVersion(type)) return null;
  if (certificate.issuer_id === null || certificate.issuer_id === '') {
    return {
      code: 'certificate_not_renewable',
      field: 'issuer_id',
      message:
        `certificate ${JSON.stringify(certificate.id)} has no issuer (it was imported from a CA Certlane ` +
        'does not hold): set its issuer_id (PUT /api/v1/certificates/{id}) to renew it',
    };
  }
  if (issuerKindWithoutConnector !== null) {
    return {
      code: 'not_implemented',
      field: 'issuer_id',
      message:
        `certificate ${JSON.stringify(certificate.id)} names issuer ${JSON.stringify(certificate.issuer_id)} ` +
        `of type ${issuerKindWithoutConnector}, which cannot issue yet: renew it at that CA and import the ` +
        'new certificate (POST /api/v1/certificates with version_of), or set an issuer_id of type local_ca',
    };
  }
  if (type === 'Renewal' && !renewedByTheLoop(certificate)) {
    return { code: 'certificate_not_renewable', field: 'agent_id', message: clientRenewalHint(certificate) };
  }
  const noAgent = keyGenerationRefusal(type, mode, certificate.agent_id);
  return noAgent ? { code: 'keygen_agent_missing', field: 'agent_id', message: noAgent } : null;
}

/** Sources whose certificates their enrollment client renews over its protocol (ACME, EST, SCEP). */
export const CLIENT_RENEWED_SOURCES: readonly CertificateSource[] = ['ACME', 'EST', 'SCEP'];

/** How a certificate its enrollment client renews is renewed, for the refusal of a renew request. */
function clientRenewalHint(certificate: { id: string; source: string }): string {
  const name = JSON.stringify(certificate.id);
  const agent =
    'or give it an agent_id (PUT /api/v1/certificates/{id}) to have Certlane renew it and deploy it';
  if (certificate.source === 'ACME')
    return (
      `certificate ${name} was issued to an ACME client, which holds its key and renews it: ask that client ` +
      'to renew now (POST /api/v1/admin/acme/certificates/{id}/renew-early, RFC 9773 renewal information), ' +
      agent
    );
  return (
    `certificate ${name} was enrolled over ${certificate.source} by a client that holds its key and renews ` +
    `it over ${certificate.source} (${certificate.source === 'EST' ? 'simplereenroll' : 'RenewalReq'}); ` +
    `its next certificate becomes this one's next version: renew it on that device, ${agent}`
  );
}

/**
 * Whether the renewal loop renews this certificate when it is due. Not one an ACME, EST or SCEP
 * client enrolled: that client holds the key and renews it over its protocol, and a version
 * Certlane made would reach nobody (in server key generation, a key nobody asked for). Unless an
 * operator gave it to an agent, which then makes the key and deploys the certificate. The loop's
 * SQL is `loopRenewsCondition` (RenewalRepository). A renew request (single or bulk) of such a
 * certificate is refused with the way to renew it (`versionJobRefusal`).
 */
export function renewedByTheLoop(certificate: { source: string; agent_id: string }): boolean {
  return (
    !(CLIENT_RENEWED_SOURCES as readonly string[]).includes(certificate.source) || certificate.agent_id !== ''
  );
}
