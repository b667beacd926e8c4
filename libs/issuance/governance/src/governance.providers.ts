import { Provider } from '@nestjs/common';
import { ApprovalGate } from './approvals/approval-gate';
import { ApprovalRepository } from './approvals/approval.repository';
import { PolicyEnforcer } from './policies/policy-enforcer';
import { PolicySweeper } from './policies/policy-sweeper';
import { PolicyHandlers } from './policies/policy.handlers';
import { PolicyRepository } from './policies/policy.repository';
import { PolicyService } from './policies/policy.service';
import { ProfileEnforcer } from './profiles/profile-enforcer';
import { ProfileHandlers } from './profiles/profile.handlers';
import { ProfileRepository } from './profiles/profile.repository';
import { ProfileService } from './profiles/profile.service';
import { RenewalPolicyHandlers } from './renewal-policies/renewal-policy.handlers';
import { RenewalPolicyRepository } from './renewal-policies/renewal-policy.repository';
import { RenewalPolicyService } from './renewal-policies/renewal-policy.service';

/** Renewal policies, profiles, approval requests and policy rules (ADR 0025, 0028). */
export const GOVERNANCE_PROVIDERS: Provider[] = [
  RenewalPolicyRepository,
  RenewalPolicyService,
  RenewalPolicyHandlers,
  ProfileRepository,
  ApprovalRepository,
  ApprovalGate,
  ProfileEnforcer,
  ProfileService,
  ProfileHandlers,
  PolicyRepository,
  PolicyEnforcer,
  PolicySweeper,
  PolicyService,
  PolicyHandlers,
];
