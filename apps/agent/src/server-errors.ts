import { ApiError } from '@certlane/api-client';
import { AgentGoneError } from './server-client';

/**
 * What a failed call to the server means for the work item it was made for:
 * - `gone`: the agent is retired or its key revoked (401, 410): the agent stops;
 * - `refused`: the server answered and will answer the same however often it is asked (any other
 *   4xx but 408 and 429): the item is settled now, not retried;
 * - `transient`: no answer (network, TLS, timeout), a 5xx, 408 or 429, or an error of the agent's
 *   own: the item is left for a later try.
 */
export type ServerErrorKind = 'gone' | 'refused' | 'transient';

const RETRYABLE_CLIENT_STATUSES = new Set([408, 429]);

export function classifyServerError(error: unknown): ServerErrorKind {
  if (error instanceof AgentGoneError) return 'gone';
  if (!(error instanceof ApiError)) return 'transient';
  if (error.status === 401 || error.status === 410) return 'gone';
  if (error.status >= 400 && error.status < 500 && !RETRYABLE_CLIENT_STATUSES.has(error.status)) {
    return 'refused';
  }
  return 'transient';
}

/**
 * How long the server asked to be left alone, in ms: the `details.retry_after_seconds` of a 429
 * or 503 answer (what its Retry-After header says, ADR 0041); undefined when it asked nothing.
 */
export function serverRetryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof ApiError) || (error.status !== 429 && error.status !== 503)) return undefined;
  // The API's own figure, else the header (a proxy's 503, the gateway's outage answer).
  const seconds = error.details?.retry_after_seconds ?? error.retryAfterSeconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0
    ? Math.ceil(seconds * 1000)
    : undefined;
}
