import { ApiError, apiErrorFrom, ApiNetworkError } from '@certlane/api-client';
import { AgentGoneError } from './server-client';
import { classifyServerError, serverRetryAfterMs } from './server-errors';

const answered = (status: number, code: ConstructorParameters<typeof ApiError>[0]['code'] = null) =>
  new ApiError({ status, code, reason: `HTTP ${status}` });

describe(classifyServerError.name, () => {
  it('says gone for a retired agent or a revoked key (410, 401), as thrown or as answered', () => {
    expect(classifyServerError(new AgentGoneError(410))).toBe('gone');
    expect(classifyServerError(new AgentGoneError(401))).toBe('gone');
    expect(classifyServerError(answered(410, 'gone'))).toBe('gone');
    expect(classifyServerError(answered(401, 'unauthenticated'))).toBe('gone');
  });

  it.each([
    [400, 'profile_violation'],
    [400, 'csr_invalid'],
    [400, 'job_invalid_transition'],
    [403, 'forbidden'],
    [404, 'job_not_found'],
    [409, 'conflict'],
    [413, 'payload_too_large'],
    [422, 'unprocessable'],
    [499, null],
  ] as const)('says refused for a final answer: %i %s', (status, code) => {
    expect(classifyServerError(answered(status, code))).toBe('refused');
  });

  it.each([
    [408, null],
    [429, 'rate_limited'],
    [500, 'internal_error'],
    [502, null],
    [503, 'service_unavailable'],
    [504, 'upstream_timeout'],
    [302, null],
  ] as const)('says transient for an answer worth asking again: %i %s', (status, code) => {
    expect(classifyServerError(answered(status, code))).toBe('transient');
  });

  it("says transient when there was no answer, or the error is the agent's own", () => {
    expect(classifyServerError(new ApiNetworkError('POST /csr: ECONNRESET'))).toBe('transient');
    expect(classifyServerError(new Error('EACCES: permission denied, rename'))).toBe('transient');
    expect(classifyServerError('a string')).toBe('transient');
  });
});

describe(serverRetryAfterMs.name, () => {
  it("takes the body's retry_after_seconds, else the Retry-After header (a proxy's 503)", () => {
    const withDetails = apiErrorFrom(
      429,
      JSON.stringify({ code: 'rate_limited', message: 'slow down', details: { retry_after_seconds: 7 } }),
      'GET /work',
      '30',
    );
    expect(serverRetryAfterMs(withDetails)).toBe(7_000);
    expect(serverRetryAfterMs(apiErrorFrom(503, '<html>busy</html>', 'GET /work', '30'))).toBe(30_000);
    expect(serverRetryAfterMs(apiErrorFrom(503, '<html>busy</html>', 'GET /work'))).toBeUndefined();
    expect(serverRetryAfterMs(apiErrorFrom(500, '{}', 'GET /work', '30'))).toBeUndefined();
  });
});
