/**
 * Action codes recorded today (docs/decisions/0016-audit-store.md lists each with its category
 * and resource). Spec 6.1 names more for features not built yet; add them here as they land.
 */
export const AuditAction = {
  BootstrapConsume: 'bootstrap.consume',
  ApiKeyCreated: 'auth.api_key_created',
  ApiKeyRotated: 'auth.api_key_rotated',
  ApiKeyDeleted: 'auth.api_key_deleted',
  RoleCreated: 'auth.role_created',
  RoleUpdated: 'auth.role_updated',
  RoleDeleted: 'auth.role_deleted',
  RoleGranted: 'auth.role_granted',
  RoleRevoked: 'auth.role_revoked',
  Logout: 'auth.logout',
  SessionRevoked: 'auth.session_revoked',
  BreakGlassLoginSucceeded: 'auth.breakglass_login_succeeded',
  BreakGlassLoginFailed: 'auth.breakglass_login_failed',
  BreakGlassLocked: 'auth.breakglass_locked',
  BreakGlassCredentialSet: 'auth.breakglass_credential_set',
  BreakGlassCredentialDeleted: 'auth.breakglass_credential_deleted',
  BreakGlassUnlocked: 'auth.breakglass_unlocked',
  UserDeactivated: 'auth.user_deactivated',
  UserReactivated: 'auth.user_reactivated',
  DemoResidualCleaned: 'auth.demo_residual_cleaned',
  NotificationRequeued: 'notification.requeued',
  NotificationRead: 'notification.read',
  NotifierCreated: 'notifier.created',
  NotifierUpdated: 'notifier.updated',
  NotifierDeleted: 'notifier.deleted',
  NotifierTested: 'notifier.tested',
  RoutingRuleCreated: 'routing_rule.created',
  RoutingRuleUpdated: 'routing_rule.updated',
  RoutingRuleDeleted: 'routing_rule.deleted',
  ContactSet: 'contact.set',
  ContactDeleted: 'contact.deleted',
  DigestSent: 'digest.sent',
  RenewalPolicyCreated: 'renewal_policy.created',
  RenewalPolicyUpdated: 'renewal_policy.updated',
  RenewalPolicyDeleted: 'renewal_policy.deleted',
  IssuerCreated: 'issuer.created',
  IssuerUpdated: 'issuer.updated',
  IssuerDeleted: 'issuer.deleted',
  IssuerTested: 'issuer.tested',
  CaCreated: 'ca.created',
  CaCertificateInstalled: 'ca.certificate_installed',
  CaRetired: 'ca.retired',
  /** A CA's certificate revoked by its parent (ADR 0075). */
  CaRevoked: 'ca.revoked',
  CaCrossCertificateCreated: 'ca.cross_certificate_created',
  CaCrossCertificateRetired: 'ca.cross_certificate_retired',
  /** A cross-certificate revoked by the CA held here that signed it (ADR 0075). */
  CaCrossCertificateRevoked: 'ca.cross_certificate_revoked',
  CertificateIssued: 'certificate.issued',
  CertificateRevoked: 'certificate.revoked',
  /** removeFromCRL released a certificateHold (ADR 0037). */
  CertificateHoldReleased: 'certificate.hold_released',
  OcspResponderIssued: 'ocsp_responder.issued',
  CertificateCreated: 'certificate.created',
  CertificateUpdated: 'certificate.updated',
  CertificateArchived: 'certificate.archived',
  CertificateRenewalRequested: 'certificate.renewal_requested',
  CertificateDeployRequested: 'certificate.deploy_requested',
  CertificateExported: 'certificate.exported',
  CertificatesBulkRevoked: 'certificate.bulk_revoked',
  CertificatesBulkRenewed: 'certificate.bulk_renewed',
  CertificatesBulkReassigned: 'certificate.bulk_reassigned',
  EstBulkRevoke: 'est_bulk_revoke',
  EstTrustAnchorReloaded: 'est_trust_anchor_reloaded',
  // The typed EST outcomes (spec 6.1), one per request of an EST client (ADR 0058).
  EstSimpleEnrollSuccess: 'est_simple_enroll_success',
  EstSimpleEnrollFailed: 'est_simple_enroll_failed',
  EstSimpleReenrollSuccess: 'est_simple_reenroll_success',
  EstSimpleReenrollFailed: 'est_simple_reenroll_failed',
  EstServerKeygenSuccess: 'est_server_keygen_success',
  EstServerKeygenFailed: 'est_server_keygen_failed',
  EstAuthFailedBasic: 'est_auth_failed_basic',
  EstAuthFailedMtls: 'est_auth_failed_mtls',
  EstAuthFailedChannelBinding: 'est_auth_failed_channel_binding',
  EstRateLimited: 'est_rate_limited',
  EstCsrPolicyViolation: 'est_csr_policy_violation',
  /** A simpleenroll or simplereenroll held for approval: 202 + Retry-After (ADR 0058 amendment). */
  EstEnrollmentPending: 'est_enrollment_pending',
  // The legacy bare enrollment codes (spec 6.1), written alongside the typed success/failed
  // record of the same operation, with the same outcome (ADR 0061); no counter of their own.
  EstSimpleEnroll: 'est_simple_enroll',
  EstSimpleReenroll: 'est_simple_reenroll',
  EstServerKeygen: 'est_server_keygen',
  EstProfileCreated: 'est_profile.created',
  EstProfileUpdated: 'est_profile.updated',
  EstProfileDeleted: 'est_profile.deleted',
  EstKeyEncryptionKeyCreated: 'est_key_encryption_key.created',
  EstKeyEncryptionKeyRevoked: 'est_key_encryption_key.revoked',
  // SCEP (spec 6.1; ADR 0059): one per certificate answered, and the profile changes.
  ScepPkcsReq: 'scep_pkcsreq',
  ScepRenewalReq: 'scep_renewalreq',
  ScepPkcsReqMdm: 'scep_pkcsreq_mdm',
  ScepRenewalReqMdm: 'scep_renewalreq_mdm',
  ScepProfileCreated: 'scep_profile.created',
  ScepProfileUpdated: 'scep_profile.updated',
  ScepProfileDeleted: 'scep_profile.deleted',
  ScepRaRotated: 'scep_profile.ra_rotated',
  ScepMdmTrustReloaded: 'scep_mdm_trust_reloaded',
  OwnerCreated: 'owner.created',
  OwnerUpdated: 'owner.updated',
  OwnerDeleted: 'owner.deleted',
  TeamCreated: 'team.created',
  TeamUpdated: 'team.updated',
  TeamDeleted: 'team.deleted',
  JobCancelled: 'job.cancelled',
  JobApproved: 'job.approved',
  JobRejected: 'job.rejected',
  JobVerified: 'job.verified',
  /** A job Running past SERVICE_JOB_RUNNING_TIMEOUT failed by the reaper (ADR 0024). */
  JobTimedOut: 'job.timed_out',
  // The agent work protocol (ADR 0027).
  JobCsrSubmitted: 'job.csr_submitted',
  JobStatusReported: 'job.status_reported',
  /** A server-generated key released, wrapped, to an agent (ADR 0033). */
  CertificateKeyReleased: 'certificate.key_released',
  // Agentless deployments from deployment-dispatch (ADR 0031).
  JobDeploymentStarted: 'job.deployment_started',
  JobDeploymentFinished: 'job.deployment_finished',
  // Agents and targets (ADR 0026); the two retirement codes are spec 6.1's.
  AgentRegistered: 'agent.registered',
  AgentRetired: 'agent_retired',
  AgentRetirementCascaded: 'agent_retirement_cascaded',
  TargetCreated: 'target.created',
  TargetUpdated: 'target.updated',
  TargetDeleted: 'target.deleted',
  TargetTested: 'target.tested',
  // Profiles and approvals (ADR 0025).
  ProfileCreated: 'profile.created',
  ProfileUpdated: 'profile.updated',
  ProfileDeleted: 'profile.deleted',
  ProfileEditRequested: 'profile.edit_requested',
  ProfileEditApplied: 'profile.edit_applied',
  ApprovalApproved: 'approval.approved',
  ApprovalRejected: 'approval.rejected',
  // Policy rules and renewal scheduling (ADR 0028).
  PolicyCreated: 'policy.created',
  PolicyUpdated: 'policy.updated',
  PolicyDeleted: 'policy.deleted',
  PolicyEvaluated: 'policy.evaluated',
  RenewalsScheduled: 'certificate.renewals_scheduled',
  // The ACME server of protocol-frontends (ADR 0053); the actor is `acme-account:<id>`.
  AcmeAccountCreated: 'acme.account_created',
  AcmeAccountUpdated: 'acme.account_updated',
  AcmeAccountDeactivated: 'acme.account_deactivated',
  AcmeAccountKeyChanged: 'acme.account_key_changed',
  AcmeOrderCreated: 'acme.order_created',
  AcmeChallengeValidated: 'acme.challenge_validated',
  AcmeChallengeFailed: 'acme.challenge_failed',
  AcmeCertificateIssued: 'acme.certificate_issued',
  AcmeCertificateRevoked: 'acme.certificate_revoked',
  AcmeEabKeyCreated: 'acme.eab_key_created',
  AcmeEabKeyRevoked: 'acme.eab_key_revoked',
  AcmeProfileCreated: 'acme_profile.created',
  AcmeProfileUpdated: 'acme_profile.updated',
  AcmeProfileDeleted: 'acme_profile.deleted',
  AcmeCertificateRenewEarly: 'acme.certificate_renew_early',
  /** Every live certificate of an ACME account or profile at once: one record per call. */
  AcmeCertificatesBulkRenewEarly: 'acme.certificate_bulk_renew_early',
  // Endpoint health checks (ADR 0057).
  HealthCheckCreated: 'health_check.created',
  HealthCheckUpdated: 'health_check.updated',
  HealthCheckDeleted: 'health_check.deleted',
  HealthCheckAcknowledged: 'health_check.acknowledged',
  ScepProbeRun: 'scep_probe.run',
  DiscoveredCertificateDismissed: 'discovered_certificate.dismissed',
  DiscoveredCertificateClaimed: 'discovered_certificate.claimed',
  DiscoveredCertificatesBulkDismissed: 'discovered_certificate.bulk_dismissed',
  DiscoveredCertificatesBulkClaimed: 'discovered_certificate.bulk_claimed',
  /** An agent's filesystem discovery push (actor: the agent). */
  AgentDiscoveryPushed: 'discovery.agent_pushed',
  /** A cloud secret-manager discovery run (actor: the `cloud-<provider>-sm` sentinel agent). */
  CloudDiscoveryRun: 'cloud_discovery.run',
  ScanTargetCreated: 'scan_target.created',
  ScanTargetUpdated: 'scan_target.updated',
  ScanTargetDeleted: 'scan_target.deleted',
  NetworkScanStarted: 'network_scan.started',
  /** Stored by the audit store itself in place of a record that failed validation. */
  RecordRejected: 'audit.record_rejected',
} as const;

export type AuditActionCode = (typeof AuditAction)[keyof typeof AuditAction];

/** The actor of work that no caller asked for, and of requests that arrived without an actor. */
export const SYSTEM_ACTOR = 'system';
export const UNKNOWN_ACTOR = 'unknown';

/** Who and which request an audit record names: the bus context's actor and request id. */
export function auditOrigin(
  context: { actor_id?: string; request_id?: string } | undefined,
  fallbackActor: string = UNKNOWN_ACTOR,
): { actor_id: string; request_id?: string } {
  return {
    actor_id: context?.actor_id || fallbackActor,
    ...(context?.request_id ? { request_id: context.request_id } : {}),
  };
}
