import { ErrorCode } from '@certlane/contracts';

/** The one mapping from error code to HTTP status. Adding a code without a status fails to compile. */
export function httpStatusFor(code: ErrorCode): number {
  switch (code) {
    case 'validation_failed':
    case 'malformed_json':
    case 'input_nul_byte':
    case 'input_too_deep':
    case 'input_too_wide':
    case 'input_string_too_long':
    case 'input_key_forbidden':
    case 'body_encoding_invalid':
    case 'idempotency_key_invalid':
    case 'issuer_config_invalid':
    case 'csr_invalid':
    case 'certificate_not_renewable':
    case 'certificate_not_issued':
    case 'certificate_not_on_hold':
    case 'reference_invalid':
    case 'bulk_criteria_empty':
    case 'job_invalid_transition':
    case 'target_config_invalid':
    case 'profile_violation':
    case 'keygen_agent_missing':
      return 400;
    case 'unauthenticated':
    case 'bootstrap_token_invalid':
      return 401;
    case 'forbidden':
    case 'csrf_token_invalid':
    case 'agent_sentinel':
    case 'approval_self_decision':
      return 403;
    case 'not_found':
    case 'route_not_found':
    case 'renewal_policy_not_found':
    case 'notification_not_found':
    case 'api_key_not_found':
    case 'role_not_found':
    case 'grant_not_found':
    case 'session_not_found':
    case 'breakglass_credential_not_found':
    case 'user_not_found':
    case 'issuer_not_found':
    case 'ca_not_found':
    case 'certificate_not_found':
    case 'certificate_version_not_found':
    case 'certificate_key_not_found':
    case 'owner_not_found':
    case 'team_not_found':
    case 'job_not_found':
    case 'verification_not_found':
    case 'agent_not_found':
    case 'target_not_found':
    case 'profile_not_found':
    case 'approval_not_found':
    case 'policy_rule_not_found':
    case 'health_check_not_found':
    case 'discovered_certificate_not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'conflict':
    case 'idempotency_key_in_use':
    case 'renewal_policy_duplicate_name':
    case 'renewal_policy_in_use':
    case 'api_key_name_taken':
    case 'role_exists':
    case 'role_builtin':
    case 'user_self_deactivation':
    case 'issuer_duplicate_name':
    case 'issuer_in_use':
    case 'issuer_type_immutable':
    case 'ca_not_active':
    case 'certificate_exists':
    case 'renewal_in_progress':
    case 'owner_exists':
    case 'owner_in_use':
    case 'team_exists':
    case 'team_in_use':
    case 'agent_exists':
    case 'agent_has_dependencies':
    case 'target_exists':
    case 'profile_exists':
    case 'profile_in_use':
    case 'approval_not_pending':
    case 'health_check_not_alerting':
    case 'notification_not_dead':
    case 'notification_not_readable':
    case 'discovered_certificate_claimed':
    case 'target_retired':
    case 'target_agent_mismatch':
    case 'certificate_not_deployable':
      return 409;
    case 'gone':
    case 'bootstrap_unavailable':
    case 'agent_retired':
      return 410;
    case 'payload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'unprocessable':
    case 'idempotency_key_reused':
    case 'stored_pem_unparseable':
      return 422;
    case 'breakglass_locked':
      return 423;
    case 'rate_limited':
      return 429;
    case 'internal_error':
      return 500;
    case 'not_implemented':
      return 501;
    case 'service_unavailable':
    case 'demo_mode_active':
      return 503;
    case 'upstream_timeout':
      return 504;
    default:
      return assertNever(code);
  }
}

function assertNever(value: never): never {
  throw new Error(`unmapped error code ${String(value)}`);
}
