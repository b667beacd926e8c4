import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { OUTAGE_RETRY_AFTER_SECONDS, retryAfterSeconds } from './retry-after';

describe(retryAfterSeconds.name, () => {
  it('tells clients to retry an outage (service_unavailable) after the default delay', () => {
    expect(retryAfterSeconds(new CertlaneError(ErrorCode.ServiceUnavailable, 'down'))).toBe(
      OUTAGE_RETRY_AFTER_SECONDS,
    );
  });

  it('uses the delay a producer gave, in whole seconds of at least one', () => {
    const limited = (seconds: number) =>
      new CertlaneError(ErrorCode.RateLimited, 'slow down', { retry_after_seconds: seconds });
    expect(retryAfterSeconds(limited(12.2))).toBe(13);
    expect(retryAfterSeconds(limited(0))).toBe(1);
    expect(
      retryAfterSeconds(new CertlaneError(ErrorCode.ServiceUnavailable, 'down', { retry_after_seconds: 30 })),
    ).toBe(30);
  });

  it.each([
    ['a rate limit without a delay', new CertlaneError(ErrorCode.RateLimited, 'slow down')],
    ['demo_mode_active (503, but not an outage)', new CertlaneError(ErrorCode.DemoModeActive, 'demo')],
    ['upstream_timeout', new CertlaneError(ErrorCode.UpstreamTimeout, 'late')],
    ['internal_error', new CertlaneError(ErrorCode.Internal, 'internal error')],
  ])('gives none for %s', (_label, error) => {
    expect(retryAfterSeconds(error)).toBeUndefined();
  });
});
