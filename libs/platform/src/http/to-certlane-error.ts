import { HttpException } from '@nestjs/common';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { databaseOutageError } from '../database/database-unreachable';
import { pgIntegrityError } from '../database/pg-errors';

const STATUS_CODES: Record<number, ErrorCode> = {
  400: ErrorCode.ValidationFailed,
  401: ErrorCode.Unauthenticated,
  403: ErrorCode.Forbidden,
  404: ErrorCode.RouteNotFound,
  405: ErrorCode.MethodNotAllowed,
  413: ErrorCode.PayloadTooLarge,
  415: ErrorCode.UnsupportedMediaType,
};

/**
 * Normalises whatever a request raised into a CertlaneError: our own errors pass through;
 * body-parser and Nest routing errors get their code; an unreachable database is
 * service_unavailable; anything else is an internal error whose details stay in the log, not in
 * the response. Returns [error, expected].
 */
export function toCertlaneError(error: unknown): [CertlaneError, boolean] {
  if (error instanceof CertlaneError) return [error, true];
  const parserType = (error as { type?: string } | null)?.type;
  if (parserType === 'entity.parse.failed') {
    return [new CertlaneError(ErrorCode.MalformedJson, 'the request body is not valid JSON'), true];
  }
  if (parserType === 'entity.too.large') {
    return [new CertlaneError(ErrorCode.PayloadTooLarge, 'the request body is too large'), true];
  }
  if (parserType === 'encoding.unsupported' || parserType === 'charset.unsupported') {
    return [new CertlaneError(ErrorCode.UnsupportedMediaType, 'unsupported request body encoding'), true];
  }
  const parserStatus = (error as { status?: unknown } | null)?.status;
  if (parserStatus === 400 && isDecompressionError(error)) {
    return [
      new CertlaneError(
        ErrorCode.BodyEncodingInvalid,
        'the request body does not decode with its Content-Encoding',
      ),
      true,
    ];
  }
  // Any other body-parser failure the client caused (size mismatch, aborted upload...).
  if (parserType && typeof parserStatus === 'number' && parserStatus >= 400 && parserStatus < 500) {
    return [
      new CertlaneError(
        STATUS_CODES[parserStatus] ?? ErrorCode.ValidationFailed,
        'the request body could not be read',
      ),
      true,
    ];
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const code = STATUS_CODES[status];
    if (code) {
      const message = code === ErrorCode.RouteNotFound ? 'no such route' : error.message;
      return [new CertlaneError(code, message), true];
    }
  }
  const outage = databaseOutageError(error);
  if (outage) return [outage, true];
  // A Postgres integrity error no caller mapped: still the client's 4xx, but logged (a gap).
  const integrity = pgIntegrityError(error);
  if (integrity) return [integrity, false];
  return [new CertlaneError(ErrorCode.Internal, 'internal error'), false];
}

/** A zlib or brotli failure (gzip, deflate, br bodies), which body-parser raises as a plain 400. */
function isDecompressionError(error: unknown): boolean {
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  return typeof errno === 'number' && typeof code === 'string' && /^(Z_|ERR__)/.test(code);
}
