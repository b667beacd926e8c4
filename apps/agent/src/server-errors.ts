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
