import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  CaCrossCertificateDto,
  CaCrossCertificateIdRequest,
  CertlaneError,
  CreateCaCrossCertificateRequest,
  ErrorCode,
  ListCaCrossCertificatesRequest,
  Page,
  RequestContext,
  resolvePage,
  RevokeCaCrossCertificateRequest,
} from '@certlane/contracts';
import { Certificate, isPkiError, parseCertificate, toPem } from '@certlane/pki';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { notFound, pageOf, UnitOfWork } from '@certlane/issuance-data-access';
import { EntityManager } from 'typeorm';
import { issuerAudit } from '../issuers/issuer.service';
import { CaRepository, CaRow } from './ca.repository';
import { LocalCaService } from './local-ca.service';
import {
  CrossCertificateRepository,
  crossCertificateDto,
  CrossCertificateRow,
  NewCrossCertificateRow,
} from './cross-certificate.repository';
import { crossSign, heldIssuerOf, importedCrossCertificateProblem } from './cross-signing';

const caNotFound = (id: string) => notFound(ErrorCode.CaNotFound, 'CA', id);
const crossNotFound = (caId: string, id: string) =>
  new CertlaneError(ErrorCode.CrossCertificateNotFound, `CA ${caId} has no cross-certificate ${id}`);
const loop = (caId: string, parentId: string) =>
  new CertlaneError(
    ErrorCode.CrossCertificateLoop,
    `CA ${parentId} is CA ${caId} or one of its descendants: it cannot cross-certify it`,
    { ca_id: caId, parent_id: parentId },
  );

function newCrossCertificateId(): string {
  return `xc-${randomBytes(8).toString('hex')}`;
}

function rowOf(
  id: string,
  ca: CaRow,
  parentId: string | null,
  certificate: Certificate,
): NewCrossCertificateRow {
  return {
    id,
    ca_id: ca.id,
    parent_id: parentId,
    issuer: certificate.issuer.text,
    serial_hex: certificate.serialNumber,
    fingerprint_sha256: certificate.fingerprintSha256,
    certificate_pem: toPem('CERTIFICATE', certificate.der),
    not_before: certificate.notBefore,
    not_after: certificate.notAfter,
  };
}

/**
 * Cross-certificates of local CAs (ADR 0070): a CA held here signs another CA's subject and key,
 * or one an external CA signed is imported; retired ones no longer give alternate chains. Every
 * change is audited through the issuance outbox in its own transaction.
 */
@Injectable()
export class CrossCertificateService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly cas: CaRepository,
    private readonly crossCertificates: CrossCertificateRepository,
    private readonly localCa: LocalCaService,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
  ) {}

  async create(
    request: CreateCaCrossCertificateRequest,
    context?: RequestContext,
  ): Promise<CaCrossCertificateDto> {
    if ((request.parent_id === undefined) === (request.certificate_pem === undefined)) {
      throw CertlaneError.validation([
        { field: 'parent_id', message: 'give exactly one of parent_id and certificate_pem' },
      ]);
    }
    return this.unitOfWork.run(async (manager) => {
      const ca = await this.cas.find(request.id, manager, true);
      if (!ca) throw caNotFound(request.id);
      if (ca.status !== 'active' || !ca.certificate_pem) {
        throw new CertlaneError(
          ErrorCode.CaNotActive,
          `CA ${ca.id} is ${ca.status}: only an active CA is cross-certified`,
          { ca_id: ca.id, status: ca.status },
        );
      }
      const row =
        request.parent_id !== undefined
          ? await this.signed(manager, ca, request.parent_id, request.validity_days)
          : await this.imported(manager, ca, request.certificate_pem as string);
      await this.crossCertificates.insert(manager, row);
      const parentIssuer = await this.signingIssuerOf(manager, row);
      if (parentIssuer) {
        await this.localCa.recordCaCertificate(manager, {
          issuer_id: parentIssuer,
          serial_hex: row.serial_hex,
          ca_id: row.parent_id as string,
          fingerprint_sha256: row.fingerprint_sha256,
          subject: ca.subject,
          not_before: row.not_before,
          not_after: row.not_after,
        });
      }
      await this.outbox.audit(
        manager,
        issuerAudit(
          AuditAction.CaCrossCertificateCreated,
          row.id,
          context,
          {
            ca_id: ca.id,
            parent_id: row.parent_id,
            imported: request.certificate_pem !== undefined,
            issuer: row.issuer,
            serial_hex: row.serial_hex,
            not_after: row.not_after.toISOString(),
          },
          'ca_cross_certificate',
        ),
      );
      return crossCertificateDto((await this.crossCertificates.find(row.id, manager)) as CrossCertificateRow);
    });
  }

  /** The issuer of the CA held here that signed a cross-certificate, if any (it lists its revocation). */
  private async signingIssuerOf(
    manager: EntityManager,
    cross: { parent_id: string | null },
  ): Promise<string | null> {
    if (!cross.parent_id) return null;
    return (await this.cas.find(cross.parent_id, manager))?.issuer_id ?? null;
  }

  /**
   * Revokes a cross-certificate a CA held here signed (ADR 0075): its serial is recorded revoked
   * under that CA's issuer (on its CRL, OCSP revoked) and it leaves the alternate chains. One
   * imported from an external CA is revoked by that CA (409); a revocation is final (409 again).
   */
  async revoke(
    request: RevokeCaCrossCertificateRequest,
    context?: RequestContext,
  ): Promise<CaCrossCertificateDto> {
    const reason = request.reason ?? 'unspecified';
    return this.unitOfWork.run(async (manager) => {
      if (!(await this.cas.find(request.id, manager))) throw caNotFound(request.id);
      const cross = await this.crossCertificates.find(request.cross_id, manager, true);
      if (!cross || cross.ca_id !== request.id) throw crossNotFound(request.id, request.cross_id);
      if (cross.revoked_at) {
        throw new CertlaneError(ErrorCode.CaNotActive, `cross-certificate ${cross.id} is already revoked`);
      }
      const issuerId = await this.signingIssuerOf(manager, cross);
      if (!issuerId) {
        throw new CertlaneError(
          ErrorCode.CaNotActive,
          `cross-certificate ${cross.id} was signed by an external CA (${cross.issuer}): that CA revokes it`,
        );
      }
      const revokedAt = await this.localCa.revokeCaSerial(
        manager,
        issuerId,
        cross.serial_hex,
        reason,
        context?.actor_id,
      );
      await this.crossCertificates.markRevoked(manager, cross.id, reason, revokedAt);
      await this.outbox.audit(
        manager,
        issuerAudit(
          AuditAction.CaCrossCertificateRevoked,
          cross.id,
          context,
          { ca_id: cross.ca_id, parent_id: cross.parent_id, serial_hex: cross.serial_hex, reason },
          'ca_cross_certificate',
        ),
      );
      return crossCertificateDto(
        (await this.crossCertificates.find(cross.id, manager)) as CrossCertificateRow,
      );
    });
  }

  /** A cross-certificate that CA `parentId`, held here, signs for `ca`. */
  private async signed(
    manager: EntityManager,
    ca: CaRow,
    parentId: string,
    validityDays?: number,
  ): Promise<NewCrossCertificateRow> {
    const parent = await this.cas.find(parentId, manager);
    if (!parent) throw caNotFound(parentId);
    if (await this.crossCertificates.isSelfOrDescendant(manager, ca.id, parent.id))
      throw loop(ca.id, parent.id);
    const signer = await this.localCa.caSigner(parent);
    const certificate = await crossSign(
      { certificatePem: ca.certificate_pem as string },
      {
        id: parent.id,
        certificatePem: parent.certificate_pem as string,
        signer,
        revocation: await this.localCa.caRevocationUrls(parent, manager),
      },
      validityDays,
    );
    return rowOf(newCrossCertificateId(), ca, parent.id, certificate);
  }

  /** A cross-certificate an external CA (or one held here) signed for `ca`, checked against it. */
  private async imported(manager: EntityManager, ca: CaRow, pem: string): Promise<NewCrossCertificateRow> {
    let certificate: Certificate;
    try {
      certificate = parseCertificate(pem);
    } catch (error) {
      if (!isPkiError(error)) throw error;
      throw new CertlaneError(
        ErrorCode.CrossCertificateInvalid,
        `certificate_pem refused: ${error.message}`,
        {
          rule: error.code,
        },
      );
    }
    const problem = importedCrossCertificateProblem(
      certificate,
      parseCertificate(ca.certificate_pem as string),
    );
    if (problem) {
      throw new CertlaneError(
        ErrorCode.CrossCertificateInvalid,
        `certificate_pem refused: ${problem.message}`,
        {
          rule: problem.rule,
        },
      );
    }
    const candidates = await this.cas.withCertificateOfSubject(manager, certificate.issuer.text);
    const parent = heldIssuerOf(certificate, candidates);
    if (parent && (await this.crossCertificates.isSelfOrDescendant(manager, ca.id, parent.id))) {
      throw loop(ca.id, parent.id);
    }
    return rowOf(newCrossCertificateId(), ca, parent?.id ?? null, certificate);
  }

  async list(request: ListCaCrossCertificatesRequest): Promise<Page<CaCrossCertificateDto>> {
    if (!(await this.cas.find(request.id))) throw caNotFound(request.id);
    const page = resolvePage(request);
    const { rows, total } = await this.crossCertificates.list(request.id, page);
    return pageOf(rows.map(crossCertificateDto), total, page);
  }

  /** Takes a cross-certificate out of the alternate chains of what is issued from now on. */
  async retire(
    request: CaCrossCertificateIdRequest,
    context?: RequestContext,
  ): Promise<CaCrossCertificateDto> {
    return this.unitOfWork.run(async (manager) => {
      if (!(await this.cas.find(request.id, manager))) throw caNotFound(request.id);
      const cross = await this.crossCertificates.find(request.cross_id, manager, true);
      if (!cross || cross.ca_id !== request.id) throw crossNotFound(request.id, request.cross_id);
      if (cross.retired_at) {
        throw new CertlaneError(
          ErrorCode.CrossCertificateRetired,
          `cross-certificate ${cross.id} is already retired`,
        );
      }
      await this.crossCertificates.retire(manager, cross.id);
      await this.outbox.audit(
        manager,
        issuerAudit(
          AuditAction.CaCrossCertificateRetired,
          cross.id,
          context,
          { ca_id: cross.ca_id, parent_id: cross.parent_id, serial_hex: cross.serial_hex },
          'ca_cross_certificate',
        ),
      );
      return crossCertificateDto(
        (await this.crossCertificates.find(cross.id, manager)) as CrossCertificateRow,
      );
    });
  }
}
