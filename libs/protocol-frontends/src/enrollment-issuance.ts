import { CertificateSource } from '@certlane/contracts';
import { CertlaneLogger, MessageBus } from '@certlane/platform';

/** What an enrollment protocol (EST, SCEP) issues for and records in the inventory. */
export interface EnrollmentIssue {
  csrPem: string;
  issuerId: string | null;
  source: Extract<CertificateSource, 'EST' | 'SCEP'>;
  owner: string | null;
  team: string | null;
  tags: Record<string, string>;
  /** RFC 7633 must-staple, when the certificate profile asks for it. */
  mustStaple?: boolean;
}

/**
 * Issues a certificate over the bus and records it in the inventory with the protocol's source,
 * owner, team and tags. The certificate is issued either way, so a failed import is logged, not
 * answered as a failed enrollment.
 */
export async function issueAndRecord(
  bus: MessageBus,
  logger: CertlaneLogger,
  request: EnrollmentIssue,
): Promise<{ certificatePem: string }> {
  const issued = await bus.request('issuance.v1.issue-certificate', {
    csr_pem: request.csrPem,
    ...(request.issuerId ? { issuer_id: request.issuerId } : {}),
    ...(request.mustStaple ? { must_staple: true } : {}),
  });
  await bus
    .request('issuance.v1.create-certificate', {
      certificate_pem: issued.full_pem,
      source: request.source,
      ...(request.owner ? { owner_id: request.owner } : {}),
      ...(request.team ? { team_id: request.team } : {}),
      tags: request.tags,
    })
    .catch((error: unknown) =>
      logger.warn(
        { err: error, serial_hex: issued.serial_hex },
        `${request.source} certificate not recorded in the inventory`,
      ),
    );
  return { certificatePem: issued.certificate_pem };
}

/**
 * The active CA certificates of an issuer (the default issuer when none is named), the issuing CA
 * first: the chain an EST `cacerts` (RFC 7030 4.1.3) or SCEP `GetCACert` answer hands clients.
 */
export async function activeCaCertificates(bus: MessageBus, issuerId: string | null): Promise<string[]> {
  const page = await bus.request('issuance.v1.list-cas', {
    ...(issuerId ? { issuer_id: issuerId } : {}),
    per_page: 100,
  });
  const active = page.data.filter((ca) => ca.status === 'active' && ca.certificate_pem);
  active.sort((a, b) => Number(b.issuing) - Number(a.issuing));
  return active.map((ca) => ca.certificate_pem!);
}
