export * from './renewal-policy-id';
export * from './renewal-policy';
export * from './issuers/issuer-config';
export * from './issuers/issuer-id';
export * from './certificates/certificate-status';
export * from './jobs/job-status';
export * from './jobs/running-lease';
export * from './bulk/bulk-plan';
export * from './certificates/lifecycle';
export * from './agent-work/agent-work-rules';
export * from './agent-work/agent-verification';
export * from './profiles/profile-rules';
export * from './approvals/approval-decision';
// Policy rules and renewal scheduling (ADR 0028).
export * from './policies/policy-config';
export * from './policies/domain-match';
export * from './policies/evaluate-policy';
export * from './renewals/renewal-schedule';
