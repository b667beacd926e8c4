import { CertlaneError, ErrorCode, ErrorDetails } from '@certlane/contracts';
import { httpStatusFor } from './error-status';

/**
 * Every HTTP error response has this body (docs/decisions/0003-error-body.md):
 * `code` is stable and machine-readable, `message` is for people, `request_id` matches the
 * X-Request-Id header and the log lines of the request, `details` is optional and code-specific.
 */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  request_id: string;
  details?: ErrorDetails;
}

export function errorResponse(error: CertlaneError, requestId: string): { status: number; body: ErrorBody } {
  const body: ErrorBody = { code: error.code, message: error.message, request_id: requestId };
  if (error.details !== undefined) body.details = error.details;
  return { status: httpStatusFor(error.code), body };
}
