import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CertlaneLogger } from '../logging/logger';
import { errorResponse } from './error-body';
import { requestIdOf } from './request-id';
import { toCertlaneError } from './to-certlane-error';

/** Renders every error, from any route or middleware, in the one error body shape. */
@Catch()
export class CertlaneExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: CertlaneLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const [error, expected] = toCertlaneError(exception);
    const requestId = requestIdOf(request);
    if (!expected) {
      this.logger.error({ err: exception, request_id: requestId, path: request.path }, 'unhandled error');
    }
    const { status, body } = errorResponse(error, requestId);
    if (response.headersSent) return;
    const retryAfter = error.details?.retry_after_seconds;
    if (error.code === 'rate_limited' && typeof retryAfter === 'number') {
      response.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
    }
    response.status(status).json(body);
  }
}
