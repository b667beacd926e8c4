/**
 * Every machine-readable error code the system emits. Codes are stable: scripts, the CLI and the
 * MCP server rely on them. HTTP status is derived from the code in one place
 * (libs/platform/src/http/error-status.ts), never chosen ad hoc by a handler.
 */
export const ErrorCode = {
  ValidationFailed: 'validation_failed',
  MalformedJson: 'malformed_json',
  // Hostile or oversized input, refused at the edge before validation (ADR 0040).
  InputNulByte: 'input_nul_byte',
  InputTooDeep: 'input_too_deep',
  InputTooWide: 'input_too_wide',
  InputStringTooLong: 'input_string_too_long',
  InputKeyForbidden: 'input_key_forbidden',
  BodyEncodingInvalid: 'body_encoding_invalid',
  Unauthenticated: 'unauthenticated',
  Forbidden: 'forbidden',
  NotFound: 'not_found',
  RouteNotFound: 'route_not_found',
  MethodNotAllowed: 'method_not_allowed',
  Conflict: 'conflict',
  Gone: 'gone',
  PayloadTooLarge: 'payload_too_large',
  UnsupportedMediaType: 'unsupported_media_type',
  Unprocessable: 'unprocessable',
  IdempotencyKeyInvalid: 'idempotency_key_invalid',
  IdempotencyKeyInUse: 'idempotency_key_in_use',
  IdempotencyKeyReused: 'idempotency_key_reused',
  RateLimited: 'rate_limited',
  Internal: 'internal_error',
  NotImplemented: 'not_implemented',
  ServiceUnavailable: 'service_unavailable',
  UpstreamTimeout: 'upstream_timeout',
  RenewalPolicyNotFound: 'renewal_policy_not_found',
  RenewalPolicyDuplicateName: 'renewal_policy_duplicate_name',
  RenewalPolicyInUse: 'renewal_policy_in_use',
  BootstrapUnavailable: 'bootstrap_unavailable',
  BootstrapTokenInvalid: 'bootstrap_token_invalid',
  ApiKeyNotFound: 'api_key_not_found',
  ApiKeyNameTaken: 'api_key_name_taken',
  RoleNotFound: 'role_not_found',
  RoleExists: 'role_exists',
  RoleBuiltin: 'role_builtin',
  GrantNotFound: 'grant_not_found',
  CsrfTokenInvalid: 'csrf_token_invalid',
  SessionNotFound: 'session_not_found',
  BreakGlassLocked: 'breakglass_locked',
  BreakGlassCredentialNotFound: 'breakglass_credential_not_found',
  UserNotFound: 'user_not_found',
  UserSelfDeactivation: 'user_self_deactivation',
  DemoModeActive: 'demo_mode_active',
  IssuerNotFound: 'issuer_not_found',
  IssuerDuplicateName: 'issuer_duplicate_name',
  IssuerInUse: 'issuer_in_use',
  IssuerTypeImmutable: 'issuer_type_immutable',
  IssuerConfigInvalid: 'issuer_config_invalid',
  CaNotFound: 'ca_not_found',
  CaNotActive: 'ca_not_active',
  CsrInvalid: 'csr_invalid',
  CertificateNotFound: 'certificate_not_found',
  CertificateExists: 'certificate_exists',
  CertificateVersionNotFound: 'certificate_version_not_found',
  /** No server-held private key for the version (agent key generation, ADR 0033). */
  CertificateKeyNotFound: 'certificate_key_not_found',
  CertificateNotRenewable: 'certificate_not_renewable',
  RenewalInProgress: 'renewal_in_progress',
  CertificateNotIssued: 'certificate_not_issued',
  /** removeFromCRL names a certificate whose revocation is not a certificateHold (ADR 0037). */
  CertificateNotOnHold: 'certificate_not_on_hold',
  StoredPemUnparseable: 'stored_pem_unparseable',
  ReferenceInvalid: 'reference_invalid',
  OwnerNotFound: 'owner_not_found',
  OwnerExists: 'owner_exists',
  OwnerInUse: 'owner_in_use',
  TeamNotFound: 'team_not_found',
  TeamExists: 'team_exists',
  TeamInUse: 'team_in_use',
  BulkCriteriaEmpty: 'bulk_criteria_empty',
  JobNotFound: 'job_not_found',
  JobInvalidTransition: 'job_invalid_transition',
  VerificationNotFound: 'verification_not_found',
  // Agents and targets (ADR 0026).
  AgentNotFound: 'agent_not_found',
  AgentExists: 'agent_exists',
  AgentRetired: 'agent_retired',
  AgentSentinel: 'agent_sentinel',
  AgentHasDependencies: 'agent_has_dependencies',
  TargetNotFound: 'target_not_found',
  TargetExists: 'target_exists',
  TargetConfigInvalid: 'target_config_invalid',
  // Deploy checks and agent key generation (ADR 0042).
  TargetRetired: 'target_retired',
  TargetAgentMismatch: 'target_agent_mismatch',
  CertificateNotDeployable: 'certificate_not_deployable',
  KeygenAgentMissing: 'keygen_agent_missing',
  // Profiles and approvals (ADR 0025).
  ProfileNotFound: 'profile_not_found',
  ProfileExists: 'profile_exists',
  ProfileInUse: 'profile_in_use',
  ProfileViolation: 'profile_violation',
  ApprovalNotFound: 'approval_not_found',
  ApprovalNotPending: 'approval_not_pending',
  ApprovalSelfDecision: 'approval_self_decision',
  // Policy rules and violations (ADR 0028).
  PolicyRuleNotFound: 'policy_rule_not_found',
  // Endpoint health checks (ADR 0057).
  HealthCheckNotFound: 'health_check_not_found',
  HealthCheckNotAlerting: 'health_check_not_alerting',
  // Notifications (ADR 0056).
  NotificationNotFound: 'notification_not_found',
  NotificationNotDead: 'notification_not_dead',
  NotificationNotReadable: 'notification_not_readable',
  DiscoveredCertificateNotFound: 'discovered_certificate_not_found',
  DiscoveredCertificateClaimed: 'discovered_certificate_claimed',
  // EST profiles (ADR 0058).
  EstProfileNotFound: 'est_profile_not_found',
  EstProfileExists: 'est_profile_exists',
  EstProfileInvalid: 'est_profile_invalid',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const ALL_ERROR_CODES: readonly ErrorCode[] = Object.values(ErrorCode);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ALL_ERROR_CODES as readonly string[]).includes(value);
}
