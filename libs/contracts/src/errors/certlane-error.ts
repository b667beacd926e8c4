import { ErrorCode, isErrorCode } from './error-codes';

/** Extra, code-specific context (for validation: the offending fields). Never holds secrets. */
export type ErrorDetails = Record<string, unknown>;

/** The shape an error takes on the bus and, with `request_id` added, in every HTTP error body. */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
}

export interface FieldError {
  field: string;
  message: string;
}

/** A typed, expected failure. Anything else that escapes a handler is reported as internal_error. */
export class CertlaneError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = 'CertlaneError';
  }

  static validation(fieldErrors: FieldError[]): CertlaneError {
    const summary = fieldErrors.map((e) => e.message).join('; ');
    return new CertlaneError(ErrorCode.ValidationFailed, summary || 'request validation failed', {
      fields: fieldErrors,
    });
  }

  /**
   * Whether `error` is a validation_failed naming `field` (as `validation` builds it): a service
   * older than a new optional field refuses it so during a rolling upgrade.
   */
  static refusesField(error: unknown, field: string): boolean {
    if (!(error instanceof CertlaneError) || error.code !== ErrorCode.ValidationFailed) return false;
    const fields = (error.details as { fields?: { field?: string }[] } | undefined)?.fields ?? [];
    return fields.some((entry) => entry.field === field);
  }

  static notFound(what: string, id: string): CertlaneError {
    return new CertlaneError(ErrorCode.NotFound, `${what} ${JSON.stringify(id)} not found`);
  }

  toPayload(): ErrorPayload {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  static fromPayload(payload: unknown): CertlaneError {
    if (payload && typeof payload === 'object') {
      const { code, message, details } = payload as Partial<ErrorPayload>;
      if (isErrorCode(code) && typeof message === 'string') {
        return new CertlaneError(code, message, details);
      }
    }
    return new CertlaneError(ErrorCode.Internal, 'malformed error payload received');
  }
}
