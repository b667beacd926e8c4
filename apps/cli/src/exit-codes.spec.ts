import { ApiClientConfigError, ApiError, ApiNetworkError } from '@certlane/api-client';
import { errorLine, EXIT, exitCodeOf, OutcomeError, UsageError } from './exit-codes';

const api = (status: number) => new ApiError({ status, code: null, reason: 'r' });

describe(exitCodeOf.name, () => {
  it.each([
    [new UsageError('x'), EXIT.usage],
    [new ApiClientConfigError('http://'), EXIT.usage],
    [new ApiNetworkError('refused'), EXIT.network],
    [api(400), EXIT.usage],
    [api(401), EXIT.auth],
    [api(403), EXIT.auth],
    [api(404), EXIT.notFound],
    [api(409), EXIT.conflict],
    [api(500), EXIT.server],
    [api(503), EXIT.server],
    [new Error('bug'), EXIT.failure],
    [new OutcomeError('job ended Failed', EXIT.unsuccessful), EXIT.unsuccessful],
    [new OutcomeError('still Running', EXIT.timedOut), EXIT.timedOut],
  ])('%p exits %p', (error, code) => {
    expect(exitCodeOf(error)).toBe(code);
  });

  it('escapes control characters in the messages it prints', () => {
    const error = new ApiError({ status: 500, code: null, reason: 'job failed: \x1b[31mred\x9b' });
    expect(errorLine(error)).toBe('error: http_500: job failed: \\x1b[31mred\\x9b');
    expect(errorLine(new Error('no\x07'))).toBe('error: no\\x07');
    expect(errorLine(new UsageError('needs --reason:\n  a\n  b'))).toBe('error: needs --reason:\n  a\n  b');
  });

  it("prints the API's code, message and request id", () => {
    const error = new ApiError({
      status: 404,
      code: 'certificate_not_found',
      reason: 'gone',
      requestId: 'r-1',
    });
    expect(errorLine(error)).toBe('error: certificate_not_found: gone (request r-1)');
  });
});

describe('errorLine for a server certificate that did not verify', () => {
  const failed = (code: string) =>
    new ApiNetworkError('GET /api/v1/version: self-signed certificate', {
      cause: Object.assign(new Error('self-signed certificate'), { code }),
    });

  it('says how to trust the server (--ca-bundle), never to switch verification off', () => {
    const line = errorLine(failed('DEPTH_ZERO_SELF_SIGNED_CERT'));
    expect(line).toContain('--ca-bundle');
    expect(line).not.toContain('INSECURE');
    expect(exitCodeOf(failed('DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe(EXIT.network);
    expect(errorLine(failed('ERR_TLS_CERT_ALTNAME_INVALID'))).toContain('not for this host name');
  });

  it('adds nothing to a refused connection', () => {
    expect(errorLine(failed('ECONNREFUSED'))).toBe('error: GET /api/v1/version: self-signed certificate');
  });
});
