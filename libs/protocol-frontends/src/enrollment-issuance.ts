import {
  CertificateSource,
  CertlaneError,
  DEFAULT_ISSUER_ID,
  ErrorCode,
  ProfileEkuName,
} from '@certlane/contracts';
import { CertlaneLogger, MessageBus } from '@certlane/platform';
import { pemCertificateBlocks } from '@certlane/pki';

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
  /** The certificate profile's validity in days; the issuer's default when absent. */
  validityDays?: number;
  /** The leaf's extended key usages under the certificate profile; the issuer's default when absent. */
  extendedKeyUsage?: ProfileEkuName[];
  /** The certificate a renewal renews (PEM): issuance stores the new one as its next version. */
  renewsCertificatePem?: string;
}

/**
 * Issues a certificate and records it in the inventory with the protocol's source, owner, team and
 * tags, in one bus request (`issuance.v1.issue-and-record`, ADR 0066): the answer comes once both
 * are committed, so a certificate handed to a client is always in the inventory; when recording
 * fails the enrollment fails and the certificate is never handed out.
 */
export async function issueAndRecord(
  bus: MessageBus,
  logger: CertlaneLogger,
  request: EnrollmentIssue,
): Promise<{ certificatePem: string }> {
  const issued = await recordedWithoutUnknownOwner(
    (withOwnerAndTeam) =>
      bus.request('issuance.v1.issue-and-record', {
        csr_pem: request.csrPem,
        ...(request.issuerId ? { issuer_id: request.issuerId } : {}),
        source: request.source,
        ...(withOwnerAndTeam && request.owner ? { owner_id: request.owner } : {}),
        ...(withOwnerAndTeam && request.team ? { team_id: request.team } : {}),
        tags: request.tags,
        ...(request.mustStaple ? { must_staple: true } : {}),
        ...(request.validityDays ? { validity_days: request.validityDays } : {}),
        ...(request.extendedKeyUsage ? { extended_key_usage: request.extendedKeyUsage } : {}),
        ...(request.renewsCertificatePem ? { renews_certificate_pem: request.renewsCertificatePem } : {}),
      }),
    () =>
      logger.warn(
        { source: request.source, owner: request.owner, team: request.team, tags: request.tags },
        'enrolled certificate recorded without its owner and team: the inventory no longer knows them',
      ),
  );
  return { certificatePem: issued.certificate_pem };
}

/**
 * Sends an issue-and-record with the owner and team and, when issuance refuses only them (gone
 * from the inventory since the profile or EAB key named them: they are checked when set, ADR
 * 0071), sends it again without them and calls `dropped`: the certificate is recorded without
 * them rather than the enrollment failing.
 */
export async function recordedWithoutUnknownOwner<T>(
  send: (withOwnerAndTeam: boolean) => Promise<T>,
  dropped: () => void,
): Promise<T> {
  try {
    return await send(true);
  } catch (error) {
    if (!unknownOwnerOrTeam(error)) throw error;
    dropped();
    return send(false);
  }
}

/** issuance refused the owner or team of a record (ReferenceInvalid on owner_id or team_id). */
function unknownOwnerOrTeam(error: unknown): boolean {
  return (
    error instanceof CertlaneError &&
    error.code === ErrorCode.ReferenceInvalid &&
    ['owner_id', 'team_id'].includes(String((error.details as { field?: unknown } | undefined)?.field))
  );
}

/**
 * The active CA certificates of an issuer (the default issuer when none is named, as issuance
 * issues), the issuing CA first, then the certificates above a sub-CA an external root signed, up
 * to that root: the chain an EST `cacerts` (RFC 7030 4.1.3: "MUST include the current root CA
 * certificate") or SCEP `GetCACert` answer hands clients.
 */
export async function activeCaCertificates(bus: MessageBus, issuerId: string | null): Promise<string[]> {
  const page = await bus.request('issuance.v1.list-cas', {
    issuer_id: issuerId ?? DEFAULT_ISSUER_ID,
    per_page: 100,
  });
  const active = page.data.filter((ca) => ca.status === 'active' && ca.certificate_pem);
  active.sort((a, b) => Number(b.issuing) - Number(a.issuing));
  const pems = active.flatMap((ca) => pemCertificateBlocks(ca.certificate_pem!));
  for (const ca of active)
    for (const pem of pemCertificateBlocks(ca.external_chain_pem ?? ''))
      if (!pems.includes(pem)) pems.push(pem);
  return pems;
}
