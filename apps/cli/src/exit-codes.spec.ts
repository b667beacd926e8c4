import { ApiClientConfigError, ApiError, ApiNetworkError } from '@certlane/api-client';
import { errorLine, EXIT, exitCodeOf, UsageError } from './exit-codes';

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
  ])('%p exits %p', (error, code) => {
    expect(exitCodeOf(error)).toBe(code);
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
