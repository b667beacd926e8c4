import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  AuditRecord,
  CertlaneError,
  CreatePolicyRuleRequest,
  DEFAULT_ISSUER_ID,
  DEFAULT_POLICY_SEVERITY,
  ErrorCode,
  EvaluatePoliciesRequest,
  ListPolicyRulesRequest,
  ListPolicyViolationsRequest,
  Page,
  PolicyEvaluationResult,
  PolicyViolationSummary,
  PolicyRuleDeleted,
  PolicyRuleDto,
  PolicyRuleType,
  PolicyViolationDto,
  RequestContext,
  resolvePage,
  UpdatePolicyRuleRequest,
} from '@certlane/contracts';
import { configProblem, configText, evaluatePolicyRule, PolicySubject } from '@certlane/issuance-domain';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { DEFAULT_RENEWAL_POLICY_ID } from '../renewal-policies/renewal-policy.repository';
import { PolicySweeper } from './policy-sweeper';
import { violationSummaryOf } from './violation-summary';
import { PolicyRepository, PolicyRuleFields, policyRuleDto } from './policy.repository';
import { auditRecord, notFound, UnitOfWork } from '@certlane/issuance-data-access';

const DAY_MS = 86_400_000;

/** Policy-rule changes are configuration (spec 6.1 category `config`). */
const policyAudit = (
  action: string,
  id: string,
  context: RequestContext | undefined,
  details: Record<string, unknown>,
): AuditRecord => auditRecord('config', 'policy', action, id, context, details);

const ruleNotFound = (id: string) => notFound(ErrorCode.PolicyRuleNotFound, 'policy rule', id);

function checkConfig(type: PolicyRuleType, config: unknown): void {
  const problem = configProblem(type, config);
  if (problem) {
    throw CertlaneError.validation([{ field: 'config', message: `config: ${problem}` }]);
  }
}

const badValidity = (message: string) => CertlaneError.validation([{ field: 'not_after', message }]);

/** Policy rules (spec 2.6), their violations (2.7), and the dry run (ADR 0028). */
@Injectable()
export class PolicyService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly repository: PolicyRepository,
    private readonly sweeper: PolicySweeper,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
  ) {}

  list(request: ListPolicyRulesRequest): Promise<Page<PolicyRuleDto>> {
    return this.repository.list(resolvePage(request));
  }

  async get(id: string): Promise<PolicyRuleDto> {
    const row = await this.repository.find(id);
    if (!row) throw ruleNotFound(id);
    return policyRuleDto(row);
  }

  async create(request: CreatePolicyRuleRequest, context?: RequestContext): Promise<PolicyRuleDto> {
    checkConfig(request.type, request.config);
    const fields: PolicyRuleFields = {
      name: request.name,
      type: request.type,
      severity: request.severity ?? DEFAULT_POLICY_SEVERITY,
      config: configText(request.config),
      enabled: request.enabled ?? true,
      description: request.description ?? '',
    };
    const dto = await this.unitOfWork.run(async (manager) => {
      const id = `pol-${randomBytes(8).toString('hex')}`;
      const dto = policyRuleDto(await this.repository.insert(manager, id, fields));
      await this.outbox.add(manager, 'issuance.v1.policy.created', dto, context?.actor_id);
      await this.outbox.audit(manager, policyAudit(AuditAction.PolicyCreated, id, context, { policy: dto }));
      return dto;
    });
    this.sweeper.requestSoon();
    return dto;
  }

  async update(request: UpdatePolicyRuleRequest, context?: RequestContext): Promise<PolicyRuleDto> {
    const { id, ...changes } = request;
    const dto = await this.unitOfWork.run(async (manager) => {
      const current = await this.repository.find(id, manager, true);
      if (!current) throw ruleNotFound(id);
      const type = changes.type ?? current.type;
      if (changes.config !== undefined || changes.type !== undefined) {
        checkConfig(type, changes.config !== undefined ? changes.config : policyRuleDto(current).config);
      }
      const fields: PolicyRuleFields = {
        name: changes.name ?? current.name,
        type,
        // Spec 2.6: preserved on update when omitted.
        severity: changes.severity ?? current.severity,
        config: changes.config !== undefined ? configText(changes.config) : current.config,
        enabled: changes.enabled ?? current.enabled,
        description: changes.description ?? current.description,
      };
      const dto = policyRuleDto(await this.repository.update(manager, id, fields));
      if (!fields.enabled || fields.type !== current.type) {
        await this.repository.resolveAllOf(manager, id);
      } else if (fields.severity !== current.severity) {
        await this.repository.setOpenSeverity(manager, id, fields.severity);
      }
      await this.outbox.add(manager, 'issuance.v1.policy.updated', dto, context?.actor_id);
      await this.outbox.audit(
        manager,
        policyAudit(AuditAction.PolicyUpdated, id, context, {
          changed_fields: Object.keys(changes)
            .filter((key) => (changes as Record<string, unknown>)[key] !== undefined)
            .sort(),
          policy: dto,
        }),
      );
      return dto;
    });
    this.sweeper.requestSoon();
    return dto;
  }

  async delete(id: string, context?: RequestContext): Promise<PolicyRuleDeleted> {
    await this.unitOfWork.run(async (manager) => {
      // Its violations go with it (ON DELETE CASCADE).
      if (!(await this.repository.delete(manager, id))) throw ruleNotFound(id);
      await this.outbox.add(manager, 'issuance.v1.policy.deleted', { id }, context?.actor_id);
      await this.outbox.audit(manager, policyAudit(AuditAction.PolicyDeleted, id, context, {}));
    });
    return { id };
  }

  /** The open violations of every rule, for the dashboard (GET /policies/violations/summary). */
  async violationSummary(): Promise<PolicyViolationSummary> {
    return violationSummaryOf(await this.repository.violationSummary(), new Date());
  }

  async violations(request: ListPolicyViolationsRequest): Promise<Page<PolicyViolationDto>> {
    if (!(await this.repository.find(request.id))) throw ruleNotFound(request.id);
    return this.repository.listViolations(request.id, resolvePage(request));
  }

  /**
   * The dry run: a proposed certificate against every enabled rule. Nothing is stored but the
   * route's one audit record (every POST writes one, spec 6.1).
   */
  async evaluate(
    request: EvaluatePoliciesRequest,
    context?: RequestContext,
  ): Promise<PolicyEvaluationResult> {
    const renewalPolicyId = request.renewal_policy_id || DEFAULT_RENEWAL_POLICY_ID;
    const window = await this.repository.renewalWindowDays(renewalPolicyId);
    if (window === null) {
      throw new CertlaneError(
        ErrorCode.ReferenceInvalid,
        `renewal_policy_id: renewal policy ${JSON.stringify(renewalPolicyId)} does not exist`,
        { field: 'renewal_policy_id' },
      );
    }
    const subject: PolicySubject = {
      common_name: request.common_name,
      sans: request.sans ?? [],
      environment: request.environment ?? '',
      issuer_id: request.issuer_id || DEFAULT_ISSUER_ID,
      tags: request.tags ?? {},
      renewal_window_days: window,
      ...proposedValidity(request),
    };
    const rules = await this.repository.enabledRules();
    const result: PolicyEvaluationResult = { violations: [], skipped_rules: [], evaluated_rules: 0 };
    for (const rule of rules) {
      const outcome = evaluatePolicyRule(rule, subject);
      if (outcome.outcome === 'skipped') {
        result.skipped_rules.push({ rule_id: rule.id, reason: outcome.reason });
        continue;
      }
      result.evaluated_rules += 1;
      if (outcome.outcome === 'violation') {
        result.violations.push({
          rule_id: rule.id,
          rule_name: rule.name,
          rule_type: rule.type,
          severity: outcome.severity,
          code: outcome.code,
          message: outcome.message,
        });
      }
    }
    await this.unitOfWork.run((manager) =>
      this.outbox.audit(
        manager,
        policyAudit(AuditAction.PolicyEvaluated, 'dry-run', context, {
          common_name: request.common_name,
          evaluated_rules: result.evaluated_rules,
          violations: result.violations.length,
          skipped_rules: result.skipped_rules.length,
        }),
      ),
    );
    return result;
  }
}

/** not_before defaults to now when a validity is given; not_after wins over validity_days. */
function proposedValidity(request: EvaluatePoliciesRequest): {
  not_before: Date | null;
  not_after: Date | null;
} {
  const given = request.not_after !== undefined || request.validity_days !== undefined;
  const notBefore = request.not_before ? new Date(request.not_before) : given ? new Date() : null;
  const notAfter = request.not_after
    ? new Date(request.not_after)
    : request.validity_days !== undefined && notBefore
      ? new Date(notBefore.getTime() + request.validity_days * DAY_MS)
      : null;
  if (notBefore && notAfter && notAfter.getTime() <= notBefore.getTime()) {
    throw badValidity('not_after must be later than not_before');
  }
  return { not_before: notBefore, not_after: notAfter };
}
