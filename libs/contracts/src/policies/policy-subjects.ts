import { EventContract, RequestContract, shape } from '../messaging/contract';
import { Page } from '../pagination/page';
import {
  CertificateExpiryWarning,
  CreatePolicyRuleRequest,
  EvaluatePoliciesRequest,
  ListPolicyRulesRequest,
  ListPolicyViolationsRequest,
  PolicyEvaluationResult,
  PolicyRuleDeleted,
  PolicyRuleDto,
  PolicyRuleIdRequest,
  PolicyViolationDto,
  PolicyViolationSummary,
  PolicyViolationSummaryRequest,
  RenewalSweepResult,
  RunRenewalSweepRequest,
  UpdatePolicyRuleRequest,
} from './policy.dto';

/** Policy rules, violations and renewal scheduling: served by issuance (ADR 0028). */
export const policyRequestContracts = {
  'issuance.v1.list-policies': { request: ListPolicyRulesRequest, response: shape<Page<PolicyRuleDto>>() },
  'issuance.v1.get-policy': { request: PolicyRuleIdRequest, response: shape<PolicyRuleDto>() },
  'issuance.v1.create-policy': { request: CreatePolicyRuleRequest, response: shape<PolicyRuleDto>() },
  'issuance.v1.update-policy': { request: UpdatePolicyRuleRequest, response: shape<PolicyRuleDto>() },
  'issuance.v1.delete-policy': { request: PolicyRuleIdRequest, response: shape<PolicyRuleDeleted>() },
  'issuance.v1.list-policy-violations': {
    request: ListPolicyViolationsRequest,
    response: shape<Page<PolicyViolationDto>>(),
  },
  'issuance.v1.get-policy-violation-summary': {
    request: PolicyViolationSummaryRequest,
    response: shape<PolicyViolationSummary>(),
  },
  'issuance.v1.evaluate-policies': {
    request: EvaluatePoliciesRequest,
    response: shape<PolicyEvaluationResult>(),
  },
  'issuance.v1.run-renewal-sweep': { request: RunRenewalSweepRequest, response: shape<RenewalSweepResult>() },
} satisfies Record<string, RequestContract<object, unknown>>;

export const policyEventContracts = {
  'issuance.v1.policy.created': { payload: shape<PolicyRuleDto>() },
  'issuance.v1.policy.updated': { payload: shape<PolicyRuleDto>() },
  'issuance.v1.policy.deleted': { payload: shape<PolicyRuleDeleted>() },
  'issuance.v1.certificate.expiry-warning': { payload: shape<CertificateExpiryWarning>() },
} satisfies Record<string, EventContract<unknown>>;
