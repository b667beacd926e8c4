import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import {
  EST_OPERATION_SEGMENTS,
  EST_PATH_ID_PATTERN,
  EST_PROFILE_OUTCOMES,
  legacyEstCode,
  UpdateEstProfileRequest,
} from './est-profile.dto';

describe('the legacy bare EST enrollment codes (spec 6.1, ADR 0061)', () => {
  it('names the operation of each typed enrollment outcome and nothing for the others', () => {
    expect(
      Object.fromEntries(EST_PROFILE_OUTCOMES.map((outcome) => [outcome, legacyEstCode(outcome)])),
    ).toEqual({
      est_simple_enroll_success: 'est_simple_enroll',
      est_simple_enroll_failed: 'est_simple_enroll',
      est_simple_reenroll_success: 'est_simple_reenroll',
      est_simple_reenroll_failed: 'est_simple_reenroll',
      est_server_keygen_success: 'est_server_keygen',
      est_server_keygen_failed: 'est_server_keygen',
      est_auth_failed_basic: null,
      est_auth_failed_mtls: null,
      est_auth_failed_channel_binding: null,
      est_rate_limited: null,
      est_csr_policy_violation: null,
      est_enrollment_pending: null,
    });
  });
});

describe('EST_PATH_ID_PATTERN (RFC 7030 3.2.2)', () => {
  it('takes labels, never an operation path segment', () => {
    expect(['routers', 'simpleenroll-2', 'cacerts_eu'].every((id) => EST_PATH_ID_PATTERN.test(id))).toBe(
      true,
    );
    for (const segment of EST_OPERATION_SEGMENTS) expect(EST_PATH_ID_PATTERN.test(segment)).toBe(false);
  });
});

describe('null in an EST profile body (ADR 0049 amendment: null only where it clears)', () => {
  const refusedFields = async (body: Record<string, unknown>) =>
    (await validate(plainToInstance(UpdateEstProfileRequest, body))).map((error) => error.property);

  it.each([
    'basic_password',
    'serverkeygen_enabled',
    'serverkeygen_unencrypted_allowed',
    'channel_binding_required',
    'client_revocation_unknown',
    'rate_limit_per_minute',
    'auth_methods',
  ])('refuses %s: null, naming the field (it was a 500 or a store error)', async (field) => {
    expect(await refusedFields({ [field]: null })).toEqual([field]);
  });

  it('takes null where it clears, and leaves absent fields alone', async () => {
    expect(await refusedFields({ basic_username: null, certificate_profile_id: null })).toEqual([]);
    expect(await refusedFields({})).toEqual([]);
  });
});
