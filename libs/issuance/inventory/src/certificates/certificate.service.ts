import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { RawJson } from '@certlane/platform';
import {
  AuditAction,
  CertificateDto,
  CertificateVersionDto,
  CertlaneError,
  CreateCertificateRequest,
  DEFAULT_ISSUER_ID,
  ErrorCode,
  ExportPkcs12Request,
  ListCertificatesRequest,
  ListCertificateVersionsRequest,
  Page,
  PemExportDto,
  Pkcs12ExportDto,
  RequestContext,
  resolvePage,
  UpdateCertificateRequest,
} from '@certlane/contracts';
import {
  buildPkcs12,
  Certificate,
  exportPem,
  isPkiError,
  parseCertificate,
  parseCertificates,
} from '@certlane/pki';
import { EntityManager } from 'typeorm';
import { CaRepository } from '@certlane/issuance-ca';
import { keyAlgorithmName } from './certificate-keys';
import {
  CertificateRepository,
  CertificateRow,
  CertificateWritable,
  certificateDto,
  VersionRow,
  versionDto,
} from './certificate.repository';
import { importedCommonName, importedIssuer, importedSans } from './imported-certificate';
import { certificateNotFound, StatusTransitions, lifecycleAudit } from './status-transitions';
import { ServerIssuanceRunner } from './server-issuance.runner';
import { DEFAULT_RENEWAL_POLICY_ID, PolicyEnforcer } from '@certlane/issuance-governance';
import { pageOf, UnitOfWork } from '@certlane/issuance-data-access';
import { outboxToken, ServiceOutbox } from '@certlane/platform';

const versionNotFound = (id: string) =>
  new CertlaneError(
    ErrorCode.CertificateVersionNotFound,
    `certificate ${JSON.stringify(id)} has no version yet`,
  );

/** A certificate (and chain) given on create: the leaf first, parsed before anything is stored. */
function parseImport(pem: string): { leaf: Certificate; chain: Certificate[] } {
  let certificates: Certificate[];
  try {
    certificates = parseCertificates(pem, { maxBytes: 262144 });
  } catch (error) {
    throw CertlaneError.validation([
      {
        field: 'certificate_pem',
        message: `certificate_pem: ${isPkiError(error) ? error.message : 'does not parse'}`,
      },
    ]);
  }
  if (certificates.length === 0) {
    throw CertlaneError.validation([
      { field: 'certificate_pem', message: 'certificate_pem holds no certificate' },
    ]);
  }
  const [leaf, ...chain] = certificates;
  return { leaf, chain };
}

/** Tags as spec 2.2 bounds them (create, update, issue-and-record). */
export function checkTags(tags: unknown): void {
  if (tags === undefined) return;
  const entries = Object.entries(tags as Record<string, unknown>);
  if (
    entries.length > 64 ||
    entries.some(([k, v]) => typeof v !== 'string' || k.length > 128 || v.length > 1024)
  ) {
    throw new CertlaneError(
      ErrorCode.ValidationFailed,
      'tags must map at most 64 keys (up to 128 characters) to strings of up to 1024 characters',
      { field: 'tags' },
    );
  }
}

/** The certificate inventory: create (issue or import), read, update, archive, versions, export. */
@Injectable()
export class CertificateService {
  constructor(
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    private readonly unitOfWork: UnitOfWork,
    private readonly repository: CertificateRepository,
    private readonly transitions: StatusTransitions,
    private readonly runner: ServerIssuanceRunner,
    private readonly policies: PolicyEnforcer,
    private readonly cas: CaRepository,
  ) {}

  list(request: ListCertificatesRequest): Promise<RawJson<Page<CertificateDto>>> {
    return this.repository.list(request, resolvePage(request));
  }

  async get(id: string): Promise<CertificateDto> {
    const row = await this.repository.find(id);
    if (!row) throw certificateNotFound(id);
    return certificateDto(row);
  }

  async create(request: CreateCertificateRequest, context?: RequestContext): Promise<CertificateDto> {
    checkTags(request.tags);
    if (request.version_of !== undefined) return this.importVersion(request.version_of, request, context);
    const imported = request.certificate_pem ? parseImport(request.certificate_pem) : null;
    const id = request.id ?? `mc-${randomBytes(8).toString('hex')}`;
    // An import keeps what the certificate says (ADR 0043): its names and the issuer that signed it.
    const commonName = imported
      ? importedCommonName(imported.leaf, request.common_name)
      : (request.common_name as string);
    const fields: CertificateWritable = {
      name: request.name ?? commonName.slice(0, 255),
      common_name: commonName,
      sans: imported ? importedSans(imported.leaf) : (request.sans ?? []),
      environment: request.environment ?? '',
      owner_id: request.owner_id || null,
      team_id: request.team_id || null,
      issuer_id: imported
        ? await this.importedIssuer(imported.leaf, request.issuer_id)
        : (request.issuer_id ?? DEFAULT_ISSUER_ID),
      renewal_policy_id: request.renewal_policy_id ?? DEFAULT_RENEWAL_POLICY_ID,
      profile_id: request.profile_id ?? '',
      agent_id: request.agent_id ?? '',
      source: request.source ?? '',
      key_algorithm:
        request.key_algorithm ?? (imported && keyAlgorithmName(imported.leaf.publicKey)) ?? 'ECDSA-P256',
      tags: request.tags ?? {},
    };
    const { dto, jobId } = await this.unitOfWork.run(async (manager) => {
      await this.repository.checkReferences(manager, fields);
      let row = await this.repository.insert(manager, id, fields);
      let jobId: string | undefined;
      if (imported) {
        row = await this.storeImport(manager, row, imported, context);
      } else {
        jobId = (await this.transitions.createJob(manager, row, 'Issuance', context)).id;
        // Policy rules (ADR 0028); an import is evaluated where its version is stored.
        await this.policies.evaluateCertificates(manager, [id]);
      }
      const dto = certificateDto(row);
      await this.outbox.add(manager, 'issuance.v1.certificate.created', dto, context?.actor_id);
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.CertificateCreated, 'certificate', id, context, {
          certificate: dto,
          imported: imported !== null,
          ...(jobId ? { job_id: jobId } : {}),
        }),
      );
      return { dto, jobId };
    });
    if (jobId && this.runner.enabled) {
      await this.runner.runInline(jobId);
      return this.get(id);
    }
    return dto;
  }

  /**
   * An imported certificate stored as the new current version of an inventory certificate (a
   * renewal made outside the inventory, e.g. ACME with RFC 9773 `replaces`): its names follow the
   * new version; its other fields stay.
   */
  private async importVersion(
    certificateId: string,
    request: CreateCertificateRequest,
    context?: RequestContext,
  ): Promise<CertificateDto> {
    if (!request.certificate_pem)
      throw new CertlaneError(ErrorCode.ValidationFailed, 'version_of needs certificate_pem', {
        field: 'version_of',
      });
    const pem = request.certificate_pem;
    return this.unitOfWork.run((manager) =>
      this.importVersionIn(manager, certificateId, pem, request.source, context),
    );
  }

  /**
   * `importVersion` inside the caller's transaction (issue-and-record of a renewal, ADR 0066):
   * the certificate in `certificatePem` (leaf first) becomes the current version of `certificateId`.
   */
  async importVersionIn(
    manager: EntityManager,
    certificateId: string,
    certificatePem: string,
    source: string | undefined,
    context?: RequestContext,
  ): Promise<CertificateDto> {
    const imported = parseImport(certificatePem);
    const current = await this.transitions.lockCertificate(manager, certificateId);
    const renamed = await this.repository.update(manager, certificateId, {
      ...current,
      common_name: importedCommonName(imported.leaf, undefined),
      sans: importedSans(imported.leaf),
    });
    const row = await this.storeImport(manager, renamed, imported, context);
    const dto = certificateDto(row);
    await this.outbox.add(manager, 'issuance.v1.certificate.updated', dto, context?.actor_id);
    await this.outbox.audit(
      manager,
      lifecycleAudit(AuditAction.CertificateUpdated, 'certificate', certificateId, context, {
        changed_fields: ['version'],
        imported_version: true,
        source: source ?? current.source,
        certificate: dto,
      }),
    );
    return dto;
  }

  private async importedIssuer(leaf: Certificate, requested: string | undefined): Promise<string | null> {
    const held = (await this.cas.installedCertificates()).map((ca) => ({
      issuer_id: ca.issuer_id,
      certificate: parsedCaCertificate(ca.certificate_pem),
    }));
    return importedIssuer(leaf, held, requested);
  }

  private async storeImport(
    manager: EntityManager,
    row: CertificateRow,
    imported: { leaf: Certificate; chain: Certificate[] },
    context?: RequestContext,
  ): Promise<CertificateRow> {
    const { leaf, chain } = imported;
    const pem = exportPem(leaf, chain);
    const stored = await this.transitions.storeVersion(
      manager,
      row,
      {
        id: `ver-${randomUUID()}`,
        certificate_id: row.id,
        serial_number: leaf.serialNumber,
        fingerprint_sha256: leaf.fingerprintSha256,
        key_algorithm: keyAlgorithmName(leaf.publicKey) ?? leaf.publicKey.description,
        key_size: leaf.publicKey.size ?? 0,
        issued_at: leaf.notBefore,
        not_before: leaf.notBefore,
        not_after: leaf.notAfter,
        cert_pem: pem.cert_pem,
        chain_pem: pem.chain_pem,
        csr_pem: null,
        issuer_id: row.issuer_id ?? '',
        job_id: null,
      },
      context,
    );
    return stored.certificate;
  }

  async update(request: UpdateCertificateRequest, context?: RequestContext): Promise<CertificateDto> {
    const { id, ...changes } = request;
    checkTags(changes.tags);
    return this.unitOfWork.run(async (manager) => {
      const current = await this.transitions.lockCertificate(manager, id);
      const given = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
      await this.repository.checkReferences(manager, given);
      const merged: CertificateWritable = {
        name: changes.name ?? current.name,
        common_name: changes.common_name ?? current.common_name,
        sans: changes.sans ?? current.sans,
        environment: changes.environment ?? current.environment,
        owner_id: changes.owner_id !== undefined ? changes.owner_id || null : current.owner_id,
        team_id: changes.team_id !== undefined ? changes.team_id || null : current.team_id,
        issuer_id: changes.issuer_id ?? current.issuer_id,
        renewal_policy_id: changes.renewal_policy_id ?? current.renewal_policy_id,
        profile_id: changes.profile_id ?? current.profile_id,
        agent_id: changes.agent_id ?? current.agent_id,
        source: changes.source ?? current.source,
        key_algorithm: changes.key_algorithm ?? current.key_algorithm,
        tags: changes.tags ?? current.tags,
      };
      if (changesWhatIsCertified(current, merged)) {
        const held = await this.repository.approvedOpenVersionJob(manager, id);
        if (held) {
          throw new CertlaneError(
            ErrorCode.RenewalInProgress,
            `job ${held} of certificate ${id} was held for approval and is still open: cancel it before changing the names, key algorithm or profile, so that what is issued is what was approved`,
            { job_id: held },
          );
        }
      }
      const dto = certificateDto(await this.repository.update(manager, id, merged));
      await this.policies.evaluateCertificates(manager, [id]);
      await this.outbox.add(manager, 'issuance.v1.certificate.updated', dto, context?.actor_id);
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.CertificateUpdated, 'certificate', id, context, {
          changed_fields: Object.keys(given).sort(),
          certificate: dto,
        }),
      );
      return dto;
    });
  }

  /** DELETE archives: the row and its versions stay (jobs and audit refer to them). */
  async archive(id: string, context?: RequestContext): Promise<CertificateDto> {
    return this.unitOfWork.run(async (manager) => {
      const current = await this.transitions.lockCertificate(manager, id);
      const archived = await this.transitions.applyCertificateEvent(
        manager,
        current,
        { kind: 'archive' },
        context,
      );
      const { certificate: row, cancelled } = await this.transitions.withdrawVersionJobs(
        manager,
        archived,
        context,
        'certificate archived',
      );
      // Its open policy violations are resolved (the sweep passes archived certificates by).
      await this.policies.evaluateCertificates(manager, [id]);
      const dto = certificateDto(row);
      await this.outbox.add(manager, 'issuance.v1.certificate.archived', dto, context?.actor_id);
      await this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.CertificateArchived, 'certificate', id, context, {
          from: current.status,
          cancelled_job_ids: cancelled,
        }),
      );
      return dto;
    });
  }

  async versions(request: ListCertificateVersionsRequest): Promise<Page<CertificateVersionDto>> {
    if (!(await this.repository.find(request.id))) throw certificateNotFound(request.id);
    const page = resolvePage(request);
    const { rows, total } = await this.repository.listVersions(request.id, page);
    return pageOf(rows.map(versionDto), total, page);
  }

  // ---- export ----

  private async currentVersion(id: string): Promise<{ certificate: CertificateRow; version: VersionRow }> {
    const certificate = await this.repository.find(id);
    if (!certificate) throw certificateNotFound(id);
    const version = certificate.current_version_id
      ? await this.repository.version(certificate.current_version_id)
      : null;
    if (!version) throw versionNotFound(id);
    return { certificate, version };
  }

  /** The stored PEM, parsed again: what does not parse is 422 (spec 4.2), never echoed. */
  private parsedVersion(version: VersionRow): { leaf: Certificate; chain: Certificate[] } {
    try {
      const [leaf] = parseCertificates(version.cert_pem);
      if (!leaf) throw new Error('no certificate');
      return { leaf, chain: version.chain_pem.trim() ? parseCertificates(version.chain_pem) : [] };
    } catch (error) {
      throw new CertlaneError(
        ErrorCode.StoredPemUnparseable,
        `the stored PEM of version ${version.id} does not parse${isPkiError(error) ? `: ${error.message}` : ''}`,
        { version_id: version.id },
      );
    }
  }

  private async auditExport(id: string, versionId: string, format: string, context?: RequestContext) {
    await this.unitOfWork.run((manager) =>
      this.outbox.audit(
        manager,
        lifecycleAudit(AuditAction.CertificateExported, 'certificate', id, context, {
          format,
          version_id: versionId,
        }),
      ),
    );
  }

  async exportPem(id: string, context?: RequestContext): Promise<PemExportDto> {
    const { version } = await this.currentVersion(id);
    const { leaf, chain } = this.parsedVersion(version);
    const pem = exportPem(leaf, chain);
    await this.auditExport(id, version.id, 'pem', context);
    return pem;
  }

  /** PKCS#12 with the certificate and chain, never a private key (libs/pki has no parameter for one). */
  async exportPkcs12(request: ExportPkcs12Request, context?: RequestContext): Promise<Pkcs12ExportDto> {
    const { certificate, version } = await this.currentVersion(request.id);
    const { leaf, chain } = this.parsedVersion(version);
    const der = buildPkcs12(leaf, chain, { password: request.password, friendlyName: certificate.name });
    await this.auditExport(request.id, version.id, 'pkcs12', context);
    return { pkcs12_base64: der.toString('base64'), filename: `${certificate.id}.p12` };
  }
}

/**
 * Every import matches its issuer against the installed CA certificates: each is parsed once per
 * process (the PEM is the key, so a renewed CA is a new entry), not once per import.
 */
const parsedCaCertificates = new Map<string, Certificate>();
const PARSED_CA_CERTIFICATES_KEPT = 256;
function parsedCaCertificate(pem: string): Certificate {
  let certificate = parsedCaCertificates.get(pem);
  if (!certificate) {
    if (parsedCaCertificates.size >= PARSED_CA_CERTIFICATES_KEPT) parsedCaCertificates.clear();
    certificate = parseCertificate(pem);
    parsedCaCertificates.set(pem, certificate);
  }
  return certificate;
}

/** Whether an update changes what a new version certifies or how it is made (ADR 0025 approvals). */
function changesWhatIsCertified(current: CertificateWritable, next: CertificateWritable): boolean {
  return (
    current.common_name !== next.common_name ||
    current.profile_id !== next.profile_id ||
    current.key_algorithm !== next.key_algorithm ||
    JSON.stringify(current.sans) !== JSON.stringify(next.sans)
  );
}
