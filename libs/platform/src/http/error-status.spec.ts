import { ALL_ERROR_CODES, CertlaneError, ErrorCode } from '@certlane/contracts';
import { errorResponse } from './error-body';
import { httpStatusFor } from './error-status';

describe(httpStatusFor.name, () => {
  it.each(ALL_ERROR_CODES.map((code) => [code]))('maps %s to a 4xx or 5xx status', (code) => {
    const status = httpStatusFor(code);
    expect(Number.isInteger(status)).toBe(true);
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThanOrEqual(599);
  });

  const expectations: [ErrorCode, number][] = [
    ['validation_failed', 400],
    ['malformed_json', 400],
    ['input_nul_byte', 400],
    ['input_too_deep', 400],
    ['input_too_wide', 400],
    ['input_string_too_long', 400],
    ['input_key_forbidden', 400],
    ['body_encoding_invalid', 400],
    ['unauthenticated', 401],
    ['forbidden', 403],
    ['not_found', 404],
    ['route_not_found', 404],
    ['renewal_policy_not_found', 404],
    ['method_not_allowed', 405],
    ['conflict', 409],
    ['renewal_policy_duplicate_name', 409],
    ['renewal_policy_in_use', 409],
    ['gone', 410],
    ['payload_too_large', 413],
    ['unsupported_media_type', 415],
    ['unprocessable', 422],
    ['idempotency_key_invalid', 400],
    ['idempotency_key_in_use', 409],
    ['idempotency_key_reused', 422],
    ['rate_limited', 429],
    ['internal_error', 500],
    ['not_implemented', 501],
    ['service_unavailable', 503],
    ['upstream_timeout', 504],
    ['bootstrap_unavailable', 410],
    ['bootstrap_token_invalid', 401],
    ['api_key_not_found', 404],
    ['api_key_name_taken', 409],
    ['role_not_found', 404],
    ['role_exists', 409],
    ['role_builtin', 409],
    ['grant_not_found', 404],
    ['csrf_token_invalid', 403],
    ['session_not_found', 404],
    ['breakglass_locked', 423],
    ['breakglass_credential_not_found', 404],
    ['oidc_provider_not_found', 404],
    ['oidc_group_mapping_not_found', 404],
    ['oidc_provider_exists', 409],
    ['oidc_provider_in_use', 409],
    ['oidc_group_mapping_exists', 409],
    ['oidc_provider_invalid', 400],
    ['user_not_found', 404],
    ['user_self_deactivation', 409],
    ['demo_mode_active', 503],
    ['issuer_not_found', 404],
    ['issuer_duplicate_name', 409],
    ['issuer_in_use', 409],
    ['issuer_type_immutable', 409],
    ['issuer_config_invalid', 400],
    ['ca_not_found', 404],
    ['ca_not_active', 409],
    ['csr_invalid', 400],
    ['cross_certificate_invalid', 400],
    ['cross_certificate_not_found', 404],
    ['cross_certificate_loop', 409],
    ['cross_certificate_retired', 409],
    ['certificate_not_found', 404],
    ['certificate_exists', 409],
    ['certificate_version_not_found', 404],
    ['certificate_key_not_found', 404],
    ['certificate_not_renewable', 400],
    ['renewal_in_progress', 409],
    ['certificate_not_issued', 400],
    ['certificate_not_on_hold', 400],
    ['stored_pem_unparseable', 422],
    ['reference_invalid', 400],
    ['owner_not_found', 404],
    ['owner_exists', 409],
    ['owner_in_use', 409],
    ['team_not_found', 404],
    ['team_exists', 409],
    ['team_in_use', 409],
    ['bulk_criteria_empty', 400],
    ['job_not_found', 404],
    ['job_invalid_transition', 400],
    ['verification_not_found', 404],
    ['policy_rule_not_found', 404],
    ['health_check_not_found', 404],
    ['notification_not_found', 404],
    ['notifier_not_found', 404],
    ['routing_rule_not_found', 404],
    ['contact_not_found', 404],
    ['discovered_certificate_not_found', 404],
    ['scan_target_not_found', 404],
    ['network_scan_not_found', 404],
    ['scan_target_invalid', 400],
    ['discovered_certificate_not_importable', 409],
    ['est_profile_not_found', 404],
    ['est_key_encryption_key_not_found', 404],
    ['acme_account_not_found', 404],
    ['acme_eab_key_not_found', 404],
    ['acme_profile_not_found', 404],
    ['acme_order_not_found', 404],
    ['acme_certificate_not_found', 404],
    ['acme_profile_invalid', 400],
    ['est_profile_invalid', 400],
    ['scep_profile_not_found', 404],
    ['scep_profile_exists', 409],
    ['scep_profile_invalid', 400],
    ['scep_mdm_disabled', 409],
    ['scep_trust_file_error', 500],
    ['agent_not_found', 404],
    ['agent_exists', 409],
    ['agent_retired', 410],
    ['agent_sentinel', 403],
    ['agent_has_dependencies', 409],
    ['target_not_found', 404],
    ['target_exists', 409],
    ['target_config_invalid', 400],
    ['target_retired', 409],
    ['target_agent_mismatch', 409],
    ['certificate_not_deployable', 409],
    ['keygen_agent_missing', 400],
    // Profiles and approvals (ADR 0025).
    ['profile_not_found', 404],
    ['profile_exists', 409],
    ['profile_in_use', 409],
    ['profile_violation', 400],
    ['approval_not_found', 404],
    ['approval_not_pending', 409],
    ['health_check_not_alerting', 409],
    ['notification_not_dead', 409],
    ['est_profile_exists', 409],
    ['acme_account_not_valid', 409],
    ['acme_profile_exists', 409],
    ['acme_certificate_revoked', 409],
    ['acme_certificate_expired', 409],
    ['notification_not_readable', 409],
    ['notifier_exists', 409],
    ['routing_rule_exists', 409],
    ['notifier_config_invalid', 400],
    ['discovered_certificate_claimed', 409],
    ['approval_self_decision', 403],
  ];

  it.each(expectations)('maps %s to %d', (code, status) => {
    expect(httpStatusFor(code)).toBe(status);
  });

  it('has an expectation above for every code, so a new code needs a deliberate status', () => {
    expect(expectations.map(([code]) => code).sort()).toEqual([...ALL_ERROR_CODES].sort());
  });

  it('throws for a value that is not an error code instead of inventing a status', () => {
    expect(() => httpStatusFor('teapot' as ErrorCode)).toThrow('unmapped error code teapot');
  });
});

describe(errorResponse.name, () => {
  it('builds the error body with code, message and request_id, and no details key when there are none', () => {
    const response = errorResponse(
      new CertlaneError(ErrorCode.RenewalPolicyNotFound, 'renewal policy "rp-x" not found'),
      'req-1',
    );
    expect(response).toEqual({
      status: 404,
      body: {
        code: 'renewal_policy_not_found',
        message: 'renewal policy "rp-x" not found',
        request_id: 'req-1',
      },
    });
    expect(Object.keys(response.body)).toEqual(['code', 'message', 'request_id']);
  });

  it('carries the details of the error', () => {
    const error = CertlaneError.validation([
      { field: 'max_retries', message: 'max_retries must be between 0 and 10' },
    ]);
    expect(errorResponse(error, 'req-2')).toEqual({
      status: 400,
      body: {
        code: 'validation_failed',
        message: 'max_retries must be between 0 and 10',
        request_id: 'req-2',
        details: { fields: [{ field: 'max_retries', message: 'max_retries must be between 0 and 10' }] },
      },
    });
  });

  it('lifts integer details.counts to the top level with the message as error (spec 4.7 {error, counts})', () => {
    const counts = { active_targets: 2, active_certificates: 1, pending_jobs: 0 };
    const error = new CertlaneError(ErrorCode.AgentHasDependencies, 'agent "a1" has active dependencies', {
      counts,
    });
    expect(errorResponse(error, 'req-3')).toEqual({
      status: 409,
      body: {
        code: 'agent_has_dependencies',
        message: 'agent "a1" has active dependencies',
        request_id: 'req-3',
        details: { counts },
        error: 'agent "a1" has active dependencies',
        counts,
      },
    });
  });

  it('leaves details that are not integer counts where they are', () => {
    const error = new CertlaneError(ErrorCode.Conflict, 'x', { counts: { a: 'one' } });
    expect(errorResponse(error, 'r').body).toEqual({
      code: 'conflict',
      message: 'x',
      request_id: 'r',
      details: { counts: { a: 'one' } },
    });
  });

  it('derives the status from the code, never from the caller', () => {
    expect(errorResponse(new CertlaneError(ErrorCode.UpstreamTimeout, 'slow'), 'r').status).toBe(504);
    expect(errorResponse(new CertlaneError(ErrorCode.Internal, 'x'), 'r').status).toBe(500);
  });
});
