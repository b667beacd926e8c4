import { isErrorCode, type ErrorCode, type ErrorDetails } from '@certlane/contracts';

export interface ApiErrorInit {
  status: number;
  /** The error body's code (docs/errors.md); null when the answer carried no known code (a proxy's page). */
  code: ErrorCode | null;
  /** The error body's message as the API wrote it. */
  reason: string;
  details?: ErrorDetails;
  /** The error body's request_id, to quote to an operator. */
  requestId?: string;
  /** What was asked, e.g. "POST /api/v1/agents/web-1/csr", for the message. */
  request?: string;
  /** The answer's Retry-After (RFC 9110 10.2.3) in seconds, when it had one. */
  retryAfterSeconds?: number;
}

/** The API answered, with a status other than 2xx (the error body of spec 7). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode | null;
  readonly reason: string;
  readonly details?: ErrorDetails;
  readonly requestId?: string;
  /** The answer's Retry-After in seconds (a 429 or 503, from the API or a proxy before it). */
  readonly retryAfterSeconds?: number;

  constructor(init: ApiErrorInit) {
    super(
      `${init.request ? `${init.request}: ` : ''}${init.status} ${init.code ?? 'http_error'}: ${init.reason}`,
    );
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.reason = init.reason;
    if (init.details) this.details = init.details;
    if (init.requestId) this.requestId = init.requestId;
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** No usable answer: refused or broken connection, TLS failure, timeout, oversized or unreadable body. */
export class ApiNetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApiNetworkError';
  }
}

/** The client was set up wrong (an http:// or malformed base URL); nothing was sent. */
export class ApiClientConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApiClientConfigError';
  }
}

/** The ApiError for a non-2xx answer, from its status and raw body (the spec 7 error body when JSON). */
/**
 * A Retry-After header in seconds: delta-seconds, or an HTTP-date counted from `now` (RFC 9110
 * 10.2.3); undefined when absent or unreadable.
 */
export function retryAfterSeconds(header: string | undefined, now = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  // An HTTP-date names its zone (IMF-fixdate, and the obsolete forms, say GMT); Date.parse would
  // also read "-3" as a year.
  if (!/GMT$/.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

export function apiErrorFrom(status: number, body: string, request = '', retryAfter?: string): ApiError {
  let parsed: unknown;
  try {
    parsed = body ? JSON.parse(body) : undefined;
  } catch {
    parsed = undefined;
  }
  const error = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const code = isErrorCode(error.code) ? error.code : null;
  const reason = typeof error.message === 'string' ? error.message : `HTTP ${status}`;
  const details =
    typeof error.details === 'object' && error.details !== null && !Array.isArray(error.details)
      ? (error.details as ErrorDetails)
      : undefined;
  const requestId = typeof error.request_id === 'string' ? error.request_id : undefined;
  return new ApiError({
    status,
    code,
    reason,
    details,
    requestId,
    request,
    retryAfterSeconds: retryAfterSeconds(retryAfter),
  });
}
