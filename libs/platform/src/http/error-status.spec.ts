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

  it.each([
    ['validation_failed', 400],
    ['malformed_json', 400],
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
    ['user_not_found', 404],
    ['user_self_deactivation', 409],
    ['demo_mode_active', 503],
    ['issuer_not_found', 404],
    ['issuer_duplicate_name', 409],
    ['issuer_in_use', 409],
    ['issuer_config_invalid', 400],
    ['ca_not_found', 404],
    ['ca_not_active', 409],
    ['csr_invalid', 400],
    ['certificate_not_found', 404],
  ] as [ErrorCode, number][])('maps %s to %d', (code, status) => {
    expect(httpStatusFor(code)).toBe(status);
  });

  it('has an expectation above for every code, so a new code needs a deliberate status', () => {
    expect(ALL_ERROR_CODES).toHaveLength(43);
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

  it('derives the status from the code, never from the caller', () => {
    expect(errorResponse(new CertlaneError(ErrorCode.UpstreamTimeout, 'slow'), 'r').status).toBe(504);
    expect(errorResponse(new CertlaneError(ErrorCode.Internal, 'x'), 'r').status).toBe(500);
  });
});
