import { ErrorCode } from '@certlane/contracts';

/** The one mapping from error code to HTTP status. Adding a code without a status fails to compile. */
export function httpStatusFor(code: ErrorCode): number {
  switch (code) {
    case 'validation_failed':
    case 'malformed_json':
    case 'issuer_config_invalid':
    case 'csr_invalid':
      return 400;
    case 'unauthenticated':
    case 'bootstrap_token_invalid':
      return 401;
    case 'forbidden':
    case 'csrf_token_invalid':
      return 403;
    case 'not_found':
    case 'route_not_found':
    case 'renewal_policy_not_found':
    case 'api_key_not_found':
    case 'role_not_found':
    case 'grant_not_found':
    case 'session_not_found':
    case 'breakglass_credential_not_found':
    case 'user_not_found':
    case 'issuer_not_found':
    case 'ca_not_found':
    case 'certificate_not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'conflict':
    case 'renewal_policy_duplicate_name':
    case 'renewal_policy_in_use':
    case 'api_key_name_taken':
    case 'role_exists':
    case 'role_builtin':
    case 'user_self_deactivation':
    case 'issuer_duplicate_name':
    case 'issuer_in_use':
    case 'ca_not_active':
      return 409;
    case 'gone':
    case 'bootstrap_unavailable':
      return 410;
    case 'payload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'unprocessable':
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
