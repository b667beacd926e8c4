import { CertlaneError, ErrorCode } from '@certlane/contracts';

/**
 * What a 503 `service_unavailable` tells clients to wait: the bus reconnects every 0.5 s and a
 * database restart takes seconds, so a few seconds avoids both hammering and long waits.
 */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/**
 * The Retry-After (whole seconds, at least 1) an error is answered with, or undefined: a rate
 * limit says how long itself (`details.retry_after_seconds`); an outage of a dependency
 * (`service_unavailable`) uses that detail when a producer set it, else the default above.
 */
export function retryAfterSeconds(error: CertlaneError): number | undefined {
  const given = error.details?.retry_after_seconds;
  const seconds =
    error.code === ErrorCode.RateLimited
      ? given
      : error.code === ErrorCode.ServiceUnavailable
        ? (given ?? OUTAGE_RETRY_AFTER_SECONDS)
        : undefined;
  return typeof seconds === 'number' && Number.isFinite(seconds)
    ? Math.max(1, Math.ceil(seconds))
    : undefined;
}
