import { ApiError, apiErrorFrom, retryAfterSeconds } from './api-errors';

describe(apiErrorFrom.name, () => {
  it('carries the status, code, message, details and request id of the spec 7 error body', () => {
    const body = JSON.stringify({
      code: 'validation_failed',
      message: 'csr_pem must be a string',
      details: { fields: [{ field: 'csr_pem', message: 'csr_pem must be a string' }] },
      request_id: 'req-1',
    });
    const error = apiErrorFrom(400, body, 'POST /api/v1/agents/a/csr');
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      name: 'ApiError',
      status: 400,
      code: 'validation_failed',
      reason: 'csr_pem must be a string',
      details: { fields: [{ field: 'csr_pem', message: 'csr_pem must be a string' }] },
      requestId: 'req-1',
      message: 'POST /api/v1/agents/a/csr: 400 validation_failed: csr_pem must be a string',
    });
  });

  it.each([
    ['an HTML page from a proxy', '<html>Bad Gateway</html>'],
    ['an empty body', ''],
    ['a code the client does not know', JSON.stringify({ code: 'teapot', message: 'x' })],
    ['a JSON array', '[]'],
  ])('has a null code and an "HTTP <status>" reason for %s', (_label, body) => {
    const error = apiErrorFrom(502, body);
    expect(error.code).toBeNull();
    expect(error.status).toBe(502);
    if (!body.includes('teapot')) expect(error.reason).toBe('HTTP 502');
    expect(error.message).toContain('502 http_error');
  });

  it('leaves details out when the body has none or they are not an object', () => {
    expect(apiErrorFrom(404, JSON.stringify({ code: 'not_found', message: 'x' })).details).toBeUndefined();
    expect(
      apiErrorFrom(404, JSON.stringify({ code: 'not_found', message: 'x', details: ['a'] })).details,
    ).toBeUndefined();
  });
});

describe(retryAfterSeconds.name, () => {
  it('reads delta-seconds and an HTTP-date (RFC 9110 10.2.3), nothing else', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds(' 5 ', now)).toBe(5);
    expect(retryAfterSeconds('Mon, 30 Nov 2026 12:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Mon, 30 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds('-3', now)).toBeUndefined();
  });

  it('is kept on the ApiError of an answer that had it', () => {
    expect(apiErrorFrom(503, '<html>busy</html>', 'GET /x', '30').retryAfterSeconds).toBe(30);
    expect(apiErrorFrom(503, '<html>busy</html>').retryAfterSeconds).toBeUndefined();
  });
});
