import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  AuditRecord,
  CertlaneError,
  CreateRenewalPolicyRequest,
  ErrorCode,
  ListRenewalPoliciesRequest,
  Page,
  RenewalPolicyDeleted,
  RenewalPolicyDto,
  RequestContext,
  resolvePage,
  UpdateRenewalPolicyRequest,
} from '@certlane/contracts';
import {
  applyRenewalPolicyChanges,
  newRenewalPolicy,
  nextFreeId,
  renewalPolicyId,
} from '@certlane/issuance-domain';
import { isStillReferenced, outboxToken, ServiceOutbox } from '@certlane/platform';
import { DEFAULT_RENEWAL_POLICY_ID, RenewalPolicyRepository, toDto } from './renewal-policy.repository';
import { auditRecord, notFound, UnitOfWork } from '@certlane/issuance-data-access';

/** Renewal-policy changes are configuration (spec 6.1 category `config`). */
const policyAudit = (
  action: string,
  id: string,
  context: RequestContext | undefined,
  details: Record<string, unknown>,
): AuditRecord => auditRecord('config', 'renewal_policy', action, id, context, details);

const policyNotFound = (id: string) => notFound(ErrorCode.RenewalPolicyNotFound, 'renewal policy', id);

/** Renewal policy use cases; each change commits with its event in the outbox. */
@Injectable()
export class RenewalPolicyService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly repository: RenewalPolicyRepository,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
  ) {}

  list(request: ListRenewalPoliciesRequest): Promise<Page<RenewalPolicyDto>> {
    return this.repository.list(resolvePage(request));
  }

  async get(id: string): Promise<RenewalPolicyDto> {
    const policy = await this.repository.findDto(id);
    if (!policy) throw policyNotFound(id);
    return policy;
  }

  async create(request: CreateRenewalPolicyRequest, context?: RequestContext): Promise<RenewalPolicyDto> {
    const fields = newRenewalPolicy(request);
    return this.unitOfWork.run(async (manager) => {
      const baseId = renewalPolicyId(fields.name);
      const id = nextFreeId(baseId, await this.repository.idsWithPrefix(manager, baseId));
      const dto = toDto(await this.repository.insert(manager, id, fields));
      await this.outbox.add(manager, 'issuance.v1.renewal-policy.created', dto, context?.actor_id);
      await this.outbox.audit(
        manager,
        policyAudit(AuditAction.RenewalPolicyCreated, dto.id, context, { policy: dto }),
      );
      return dto;
    });
  }

  async update(request: UpdateRenewalPolicyRequest, context?: RequestContext): Promise<RenewalPolicyDto> {
    const { id, ...changes } = request;
    return this.unitOfWork.run(async (manager) => {
      const current = await this.repository.find(id, manager);
      if (!current) throw policyNotFound(id);
      const dto = toDto(
        await this.repository.update(manager, id, applyRenewalPolicyChanges(current, changes)),
      );
      await this.outbox.add(manager, 'issuance.v1.renewal-policy.updated', dto, context?.actor_id);
      await this.outbox.audit(
        manager,
        policyAudit(AuditAction.RenewalPolicyUpdated, id, context, {
          changed_fields: Object.keys(changes).sort(),
          policy: dto,
        }),
      );
      return dto;
    });
  }

  /**
   * Refused (409 renewal_policy_in_use) while a certificate references the policy (foreign key),
   * and always for the default policy: every certificate made without one (API creates, EST,
   * SCEP and ACME enrollments) references it, so without it every enrollment would fail.
   */
  async delete(id: string, context?: RequestContext): Promise<RenewalPolicyDeleted> {
    if (id === DEFAULT_RENEWAL_POLICY_ID) {
      throw new CertlaneError(
        ErrorCode.RenewalPolicyInUse,
        `renewal policy ${JSON.stringify(id)} is the default of every certificate created without one; edit it instead`,
      );
    }
    try {
      await this.unitOfWork.run(async (manager) => {
        if (!(await this.repository.delete(manager, id))) throw policyNotFound(id);
        await this.outbox.add(manager, 'issuance.v1.renewal-policy.deleted', { id }, context?.actor_id);
        await this.outbox.audit(manager, policyAudit(AuditAction.RenewalPolicyDeleted, id, context, {}));
      });
    } catch (error) {
      if (isStillReferenced(error, ['certificates_renewal_policy_id_fkey'])) {
        throw new CertlaneError(
          ErrorCode.RenewalPolicyInUse,
          `renewal policy ${JSON.stringify(id)} is used by certificates; move them to another policy first`,
        );
      }
      throw error;
    }
    return { id };
  }
}
