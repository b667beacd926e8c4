import { CertlaneError } from './certlane-error';
import { ALL_ERROR_CODES, ErrorCode, isErrorCode } from './error-codes';

describe(CertlaneError.name, () => {
  it('is an Error with its code, message, details and name', () => {
    const error = new CertlaneError(ErrorCode.Conflict, 'already exists', { id: 'rp-web' });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'CertlaneError', code: 'conflict', message: 'already exists' });
    expect(error.details).toEqual({ id: 'rp-web' });
  });

  describe('toPayload and fromPayload', () => {
    it.each([
      new CertlaneError(ErrorCode.RenewalPolicyDuplicateName, 'name "Web" is taken'),
      new CertlaneError(ErrorCode.ValidationFailed, 'bad', { fields: [{ field: 'name', message: 'bad' }] }),
      new CertlaneError(ErrorCode.UpstreamTimeout, ''),
    ])('round-trips %p through JSON unchanged', (error) => {
      const back = CertlaneError.fromPayload(JSON.parse(JSON.stringify(error.toPayload())));
      expect(back).toBeInstanceOf(CertlaneError);
      expect({ code: back.code, message: back.message, details: back.details }).toEqual({
        code: error.code,
        message: error.message,
        details: error.details,
      });
    });

    it('leaves details out of the payload when there are none', () => {
      const payload = new CertlaneError(ErrorCode.Gone, 'gone').toPayload();
      expect(payload).toEqual({ code: 'gone', message: 'gone' });
      expect('details' in payload).toBe(false);
    });

    it.each([
      ['null', null],
      ['undefined', undefined],
      ['a string', 'renewal_policy_not_found'],
      ['a number', 404],
      ['an array', ['not_found', 'x']],
      ['an empty object', {}],
      ['an unknown code', { code: 'teapot', message: 'short and stout' }],
      ['a code in the wrong case', { code: 'NOT_FOUND', message: 'x' }],
      ['a missing message', { code: 'not_found' }],
      ['a non-string message', { code: 'not_found', message: { text: 'x' } }],
    ])('turns %s into internal_error', (_label, payload) => {
      const error = CertlaneError.fromPayload(payload);
      expect(error).toBeInstanceOf(CertlaneError);
      expect({ code: error.code, message: error.message, details: error.details }).toEqual({
        code: 'internal_error',
        message: 'malformed error payload received',
        details: undefined,
      });
    });
  });

  it('builds a validation error summarising the field messages', () => {
    const fields = [
      { field: 'name', message: 'name must be a string' },
      { field: 'max_retries', message: 'max_retries must be an integer' },
    ];
    const error = CertlaneError.validation(fields);
    expect(error.toPayload()).toEqual({
      code: 'validation_failed',
      message: 'name must be a string; max_retries must be an integer',
      details: { fields },
    });
    expect(CertlaneError.validation([]).message).toBe('request validation failed');
  });

  it('builds a not-found error quoting the id', () => {
    expect(CertlaneError.notFound('certificate', 'c-1').toPayload()).toEqual({
      code: 'not_found',
      message: 'certificate "c-1" not found',
    });
  });
});

describe(isErrorCode.name, () => {
  it('accepts every code and nothing else', () => {
    for (const code of ALL_ERROR_CODES) expect(isErrorCode(code)).toBe(true);
    for (const value of ['', 'NotFound', 'not-found', undefined, null, 404, {}])
      expect(isErrorCode(value)).toBe(false);
  });

  it('lists distinct snake_case codes', () => {
    expect(new Set(ALL_ERROR_CODES).size).toBe(ALL_ERROR_CODES.length);
    for (const code of ALL_ERROR_CODES) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });
});
