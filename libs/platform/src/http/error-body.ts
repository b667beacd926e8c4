import { CertlaneError, ErrorCode, ErrorDetails } from '@certlane/contracts';
import { httpStatusFor } from './error-status';

/**
 * Every HTTP error response has this body (docs/decisions/0003-error-body.md):
 * `code` is stable and machine-readable, `message` is for people, `request_id` matches the
 * X-Request-Id header and the log lines of the request, `details` is optional and code-specific.
 *
 * A conflict that counts what blocks it (`details.counts`, e.g. `agent_has_dependencies`, spec 4.7)
 * also carries those counts at the top level with the message as `error`, so the body reads as
 * spec 4.7's `{error, counts}` while keeping the one shape (ADR 0026).
 */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  request_id: string;
  details?: ErrorDetails;
  /** The message again, only on bodies that carry `counts`. */
  error?: string;
  /** `details.counts`, lifted: integer counts by name. */
  counts?: Record<string, number>;
}

function countsOf(details: ErrorDetails | undefined): Record<string, number> | undefined {
  const counts = details?.counts;
  if (!counts || typeof counts !== 'object' || Array.isArray(counts)) return undefined;
  const entries = Object.entries(counts as Record<string, unknown>);
  return entries.every(([, value]) => Number.isInteger(value))
    ? (Object.fromEntries(entries) as Record<string, number>)
    : undefined;
}

export function errorResponse(error: CertlaneError, requestId: string): { status: number; body: ErrorBody } {
  const body: ErrorBody = { code: error.code, message: error.message, request_id: requestId };
  if (error.details !== undefined) body.details = error.details;
  const counts = countsOf(error.details);
  if (counts) {
    body.error = error.message;
    body.counts = counts;
  }
  return { status: httpStatusFor(error.code), body };
}
