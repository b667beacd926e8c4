import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  AuditRecord,
  CertlaneError,
  CreateIssuerRequest,
  ErrorCode,
  IssuerDeleted,
  IssuerDto,
  IssuerTestResult,
  IssuerType,
  ListIssuersRequest,
  Page,
  RequestContext,
  resolvePage,
  UpdateIssuerRequest,
} from '@certlane/contracts';
import {
  issuerCapabilities,
  issuerId,
  mergeRedactedSecrets,
  nextFreeId,
  redactConfig,
  validateIssuerConfig,
} from '@certlane/issuance-domain';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  isStillReferenced,
  outboxToken,
  ServiceOutbox,
} from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { IssuanceSecrets } from './issuance-secrets';
import { IssuerRepository, IssuerRow } from './issuer.repository';
import { auditRecord, notFound, pageOf, UnitOfWork } from '@certlane/issuance-data-access';

export function issuerDto(row: IssuerRow): IssuerDto {
  return {
    id: row.id,
    name: row.name,
    type: row.kind,
    // The stored public shadow is already redacted; redact again so a bug there cannot leak.
    config: redactConfig(row.config_public ?? {}),
    capabilities: issuerCapabilities(row.kind, row.config_public ?? {}),
    issuing_ca_id: row.issuing_ca_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export const issuerNotFound = (id: string) => notFound(ErrorCode.IssuerNotFound, 'issuer', id);

/** Issuer changes are configuration (spec 6.1 category `config`). */
export const issuerAudit = (
  action: string,
  id: string,
  context: (Pick<RequestContext, 'actor_id'> & Partial<RequestContext>) | undefined,
  details: Record<string, unknown>,
  resourceType = 'issuer',
): AuditRecord => auditRecord('config', resourceType, action, id, context, details);

function checkConfig(type: IssuerType, config: Record<string, unknown>, scriptsDirectory: string): void {
  const problems = validateIssuerConfig(type, config, { scriptsDirectory });
  if (problems.length > 0) {
    throw new CertlaneError(ErrorCode.IssuerConfigInvalid, problems.map((p) => p.message).join('; '), {
      fields: problems.map(({ field, message }) => ({ field, message })),
    });
  }
}

/** Hooks the local CA adds to issuer creation (its CA tree) and testing (through the connectors). */
export interface LocalCaHooks {
  provisionCas(manager: EntityManager, issuer: IssuerRow, config: Record<string, unknown>): Promise<string>;
  hasConnector(kind: string): boolean;
  test(issuer: IssuerRow): Promise<IssuerTestResult>;
}
export const LOCAL_CA_HOOKS = Symbol('LOCAL_CA_HOOKS');

/** Issuer use cases (spec 4.5): config validated per type, sealed at rest, redacted when shown. */
@Injectable()
export class IssuerService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly repository: IssuerRepository,
    private readonly secrets: IssuanceSecrets,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
    @Inject(LOCAL_CA_HOOKS) private readonly localCa: LocalCaHooks,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
  ) {}

  async list(request: ListIssuersRequest): Promise<Page<IssuerDto>> {
    const page = resolvePage(request);
    const { rows, total } = await this.repository.list(page);
    return pageOf(rows.map(issuerDto), total, page);
  }

  async get(id: string): Promise<IssuerDto> {
    const row = await this.repository.find(id);
    if (!row) throw issuerNotFound(id);
    return issuerDto(row);
  }

  /** Creates the issuer; a `local_ca` issuer gets its own root and issuing intermediate. */
  async create(request: CreateIssuerRequest, context?: RequestContext): Promise<IssuerDto> {
    const config = request.config ?? {};
    checkConfig(request.type, config, this.config.issuerScriptsDirectory);
    return this.unitOfWork.run(async (manager) => {
      const baseId = issuerId(request.name);
      const id = nextFreeId(baseId, await this.repository.idsWithPrefix(manager, baseId));
      let row = await this.repository.insert(manager, {
        id,
        name: request.name,
        kind: request.type,
        config_sealed: this.secrets.sealConfig(id, config),
        config_public: redactConfig(config),
      });
      if (request.type === 'local_ca') {
        const caId = await this.localCa.provisionCas(manager, row, config);
        await this.repository.setIssuingCa(manager, id, caId);
        row = (await this.repository.find(id, manager)) as IssuerRow;
      }
      const dto = issuerDto(row);
      await this.outbox.audit(
        manager,
        issuerAudit(AuditAction.IssuerCreated, id, context, {
          issuer: {
            id,
            name: dto.name,
            type: dto.type,
            config: dto.config,
            issuing_ca_id: dto.issuing_ca_id,
          },
        }),
      );
      return dto;
    });
  }

  async update(request: UpdateIssuerRequest, context?: RequestContext): Promise<IssuerDto> {
    return this.unitOfWork.run(async (manager) => {
      const current = await this.repository.find(request.id, manager, true);
      if (!current) throw issuerNotFound(request.id);
      if (request.type !== undefined && request.type !== current.kind) {
        throw new CertlaneError(
          ErrorCode.IssuerTypeImmutable,
          `an issuer's type cannot change (${current.kind} to ${request.type}); create a new issuer`,
        );
      }
      const stored = this.secrets.openConfig(current.id, current.config_sealed);
      const config = request.config ? mergeRedactedSecrets(stored, request.config) : stored;
      checkConfig(current.kind, config, this.config.issuerScriptsDirectory);
      const row = await this.repository.update(manager, current.id, {
        name: request.name ?? current.name,
        config_sealed: this.secrets.sealConfig(current.id, config),
        config_public: redactConfig(config),
      });
      const dto = issuerDto(row);
      const changed = [
        ...(request.name !== undefined && request.name !== current.name ? ['name'] : []),
        ...(request.config ? ['config'] : []),
      ];
      await this.outbox.audit(
        manager,
        issuerAudit(AuditAction.IssuerUpdated, row.id, context, {
          changed_fields: changed,
          issuer: { id: dto.id, name: dto.name, type: dto.type, config: dto.config },
        }),
      );
      return dto;
    });
  }

  /** Refused (409) while the issuer has CA certificates or issued certificates: CRL and OCSP need them. */
  async delete(id: string, context?: RequestContext): Promise<IssuerDeleted> {
    await this.unitOfWork.run(async (manager) => {
      const current = await this.repository.find(id, manager, true);
      if (!current) throw issuerNotFound(id);
      const usage = await this.repository.usage(manager, id);
      if (usage.certificates > 0 || usage.cas > 0) {
        throw new CertlaneError(
          ErrorCode.IssuerInUse,
          `issuer ${JSON.stringify(id)} has ${usage.certificates} issued certificate(s) and ${usage.cas} CA certificate(s), which CRL and OCSP still serve`,
          usage,
        );
      }
      try {
        await this.repository.delete(manager, id);
      } catch (error) {
        // Managed certificates (the inventory) reference their issuer with a foreign key.
        if (isStillReferenced(error, ['certificates_issuer_id_fkey'])) {
          throw new CertlaneError(
            ErrorCode.IssuerInUse,
            `issuer ${JSON.stringify(id)} is used by managed certificates; move them to another issuer first`,
            { referenced_by: 'certificates' },
          );
        }
        throw error;
      }
      await this.outbox.audit(
        manager,
        issuerAudit(AuditAction.IssuerDeleted, id, context, { type: current.kind }),
      );
    });
    return { id };
  }

  async test(id: string, context?: RequestContext): Promise<IssuerTestResult> {
    const row = await this.repository.find(id);
    if (!row) throw issuerNotFound(id);
    const result: IssuerTestResult = this.localCa.hasConnector(row.kind)
      ? await this.localCa.test(row)
      : {
          status: 'not_implemented',
          message: `the ${row.kind} connector is not implemented yet: its configuration is stored and validated, but it cannot be tested or issue`,
        };
    await this.unitOfWork.run((manager) =>
      this.outbox.audit(
        manager,
        issuerAudit(AuditAction.IssuerTested, id, context, { status: result.status }),
      ),
    );
    return result;
  }
}
