/**
 * Every machine-readable error code the system emits. Codes are stable: scripts, the CLI and the
 * MCP server rely on them. HTTP status is derived from the code in one place
 * (libs/platform/src/http/error-status.ts), never chosen ad hoc by a handler.
 */
export const ErrorCode = {
  ValidationFailed: 'validation_failed',
  MalformedJson: 'malformed_json',
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
  IssuerConfigInvalid: 'issuer_config_invalid',
  CaNotFound: 'ca_not_found',
  CaNotActive: 'ca_not_active',
  CsrInvalid: 'csr_invalid',
  CertificateNotFound: 'certificate_not_found',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const ALL_ERROR_CODES: readonly ErrorCode[] = Object.values(ErrorCode);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ALL_ERROR_CODES as readonly string[]).includes(value);
}
