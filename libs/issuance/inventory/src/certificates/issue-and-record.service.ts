import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  CertificateStatus,
  CertlaneError,
  ErrorCode,
  IssueAndRecordRequest,
  IssuedAndRecordedDto,
  RequestContext,
} from '@certlane/contracts';
import { nextCertificateStatus, statusByDates } from '@certlane/issuance-domain';
import { LocalCaService, SignedCertificate } from '@certlane/issuance-ca';
import { DEFAULT_RENEWAL_POLICY_ID, PolicyEnforcer } from '@certlane/issuance-governance';
import { UnitOfWork } from '@certlane/issuance-data-access';
import { GroupCommit, outboxToken, ServiceOutbox } from '@certlane/platform';
import { parseCertificate } from '@certlane/pki';
import { EntityManager } from 'typeorm';
import { keyAlgorithmName } from './certificate-keys';
import { CertificateRepository, CertificateWritable, certificateDto } from './certificate.repository';
import { CertificateService, checkTags } from './certificate.service';
import { importedCommonName, importedSans } from './imported-certificate';
import { lifecycleAudit } from './status-transitions';
import { RenewedCertificate, renewedCertificate } from './renewed-certificate';

/** A signed certificate waiting for the group commit that records it. */
interface PendingRecord {
  signed: SignedCertificate;
  certificate: CertificateWritable & { id: string };
  version: {
    id: string;
    serial_number: string;
    fingerprint_sha256: string;
    key_algorithm: string;
    key_size: number;
    issued_at: Date;
    not_before: Date;
    not_after: Date;
    cert_pem: string;
    chain_pem: string;
    csr_pem: null;
    issuer_id: string;
    job_id: null;
  };
  context?: RequestContext;
}

/**
 * `issuance.v1.issue-and-record` (ADR 0066): an enrollment protocol's certificate signed and
 * recorded in the inventory in one request. Signing runs at once, outside any transaction; the
 * records of concurrent requests are written together by group commit, one transaction per batch:
 * the issued serials (ADR 0045), the certificates inserted with their final status and current
 * version, their versions, policy evaluation, and per certificate the same audit records and
 * events as `issue-certificate` followed by `create-certificate` of the PEM. Each caller is
 * answered once the transaction holding its certificate has committed; a batch that fails is
 * written again one by one, so one bad request fails only itself. A certificate whose record
 * fails was signed but never handed out and its serial is not recorded.
 */
@Injectable()
export class IssueAndRecordService {
  private readonly writer = new GroupCommit<PendingRecord, IssuedAndRecordedDto>((batch) =>
    this.unitOfWork.run((manager) => this.record(manager, batch)),
  );

  constructor(
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    private readonly unitOfWork: UnitOfWork,
    private readonly repository: CertificateRepository,
    private readonly localCa: LocalCaService,
    private readonly policies: PolicyEnforcer,
    private readonly certificates: CertificateService,
  ) {}

  async issueAndRecord(
    request: IssueAndRecordRequest,
    context?: RequestContext,
  ): Promise<IssuedAndRecordedDto> {
    checkTags(request.tags);
    const { source, owner_id, team_id, tags, version_of, renews_certificate_pem, ...issue } = request;
    const renews =
      version_of ??
      (renews_certificate_pem === undefined ? undefined : renewedCertificate(renews_certificate_pem));
    const signed = await this.localCa.sign(issue, context);
    const issued = signed.certificate;
    if (renews !== undefined) {
      const renewal = await this.recordRenewal(signed, renews, source, context);
      if (renewal) return renewal;
    }
    const leaf = signed.leaf ?? parseCertificate(issued.certificate_pem);
    const commonName = importedCommonName(leaf, undefined);
    return this.writer.write({
      signed,
      certificate: {
        id: `mc-${randomBytes(8).toString('hex')}`,
        name: commonName.slice(0, 255),
        common_name: commonName,
        sans: importedSans(leaf),
        environment: '',
        owner_id: owner_id || null,
        team_id: team_id || null,
        issuer_id: issued.issuer_id,
        renewal_policy_id: DEFAULT_RENEWAL_POLICY_ID,
        profile_id: '',
        agent_id: '',
        source,
        key_algorithm: keyAlgorithmName(leaf.publicKey) ?? 'ECDSA-P256',
        tags: tags ?? {},
      },
      version: {
        id: `ver-${randomUUID()}`,
        serial_number: leaf.serialNumber,
        fingerprint_sha256: leaf.fingerprintSha256,
        key_algorithm: keyAlgorithmName(leaf.publicKey) ?? leaf.publicKey.description,
        key_size: leaf.publicKey.size ?? 0,
        issued_at: leaf.notBefore,
        not_before: leaf.notBefore,
        not_after: leaf.notAfter,
        cert_pem: issued.certificate_pem,
        chain_pem: issued.chain_pem,
        csr_pem: null,
        issuer_id: issued.issuer_id,
        job_id: null,
      },
      context,
    });
  }

  /**
   * A renewal (`version_of`, or the certificate an EST or SCEP renewal renews when it is an
   * inventory certificate's current version): the serial and the certificate's next version in one
   * transaction of its own, as `create-certificate` with `version_of` stores it (renewals are a
   * small share, so they are not group-committed). Null when there is no such certificate (an
   * operator deleted it; a renewed certificate the inventory does not hold as current): the caller
   * then records a new certificate, since this one is signed.
   */
  private async recordRenewal(
    signed: SignedCertificate,
    renews: string | RenewedCertificate,
    source: IssueAndRecordRequest['source'],
    context?: RequestContext,
  ): Promise<IssuedAndRecordedDto | null> {
    try {
      const dto = await this.unitOfWork.run(async (manager) => {
        const certificateId =
          typeof renews === 'string'
            ? renews
            : ((await this.repository.currentVersionHolder(manager, renews))?.id ?? null);
        if (certificateId === null) return null;
        await this.localCa.recordIssuedMany(manager, [signed]);
        return this.certificates.importVersionIn(
          manager,
          certificateId,
          signed.certificate.full_pem,
          source,
          context,
        );
      });
      if (dto === null) return null;
      return { ...signed.certificate, certificate_id: dto.id, version_id: dto.current_version_id ?? '' };
    } catch (error) {
      if (error instanceof CertlaneError && error.code === ErrorCode.CertificateNotFound) return null;
      throw error;
    }
  }

  private async record(manager: EntityManager, batch: PendingRecord[]): Promise<IssuedAndRecordedDto[]> {
    // The referenced rows checked and locked, and the renewal policies' windows, in one statement.
    const windows = await this.repository.checkReferencesOfAll(
      manager,
      batch.map((item) => item.certificate),
    );
    const now = new Date();
    // What storing the version of a new (Pending) certificate makes of it (the domain machine).
    const statusOf = (item: PendingRecord): CertificateStatus => {
      const validity = statusByDates(
        item.version.not_after,
        now,
        windows.get(item.certificate.renewal_policy_id) as number,
      );
      const transition = nextCertificateStatus('Pending', { kind: 'issued', validity });
      return transition.ok ? transition.to : 'Pending';
    };
    // The serials; their `certificate.issued` audit records and events (ADR 0045) go first in the
    // one outbox statement below, with the inventory's.
    const issuedEvents = await this.localCa.recordIssuedSerials(
      manager,
      batch.map((item) => item.signed),
    );
    const rows = await this.repository.insertWithVersions(
      manager,
      batch.map((item) => ({
        ...item.certificate,
        status: statusOf(item),
        not_before: item.version.not_before,
        expires_at: item.version.not_after,
        current_version_id: item.version.id,
      })),
      batch.map((item) => item.version),
    );
    const ids = rows.map((row) => row.id);
    // Policy rules see the new versions' validity (ADR 0028).
    await this.policies.evaluateCertificates(manager, ids);
    const dtos = rows.map(certificateDto);
    await this.outbox.addEach(manager, [
      ...issuedEvents,
      ...batch.flatMap((item, i) => {
        const actorId = item.context?.actor_id;
        const row = rows[i];
        return [
          ...(row.status === 'Pending'
            ? []
            : [
                {
                  subject: 'issuance.v1.certificate.status-changed' as const,
                  data: {
                    certificate_id: row.id,
                    from: 'Pending' as const,
                    to: row.status,
                    at: row.updated_at.toISOString(),
                  },
                  actorId,
                },
              ]),
          { subject: 'issuance.v1.certificate.created' as const, data: dtos[i], actorId },
          {
            audit: lifecycleAudit(AuditAction.CertificateCreated, 'certificate', row.id, item.context, {
              certificate: dtos[i],
              imported: true,
            }),
          },
        ];
      }),
    ]);
    return batch.map((item, i) => ({
      ...item.signed.certificate,
      certificate_id: rows[i].id,
      version_id: item.version.id,
    }));
  }
}
