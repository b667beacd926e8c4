import type { ServerResponse } from 'node:http';
import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CertlaneLogger } from '../logging/logger';
import { ErrorBody, errorResponse } from './error-body';
import { requestIdOf } from './request-id';
import { retryAfterSeconds } from './retry-after';
import { toCertlaneError } from './to-certlane-error';

/** Renders every error, from any route or middleware, in the one error body shape. */
@Catch()
export class CertlaneExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: CertlaneLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const { status, body, headers } = errorReply(exception, requestIdOf(request), this.logger, request.path);
    if (response.headersSent) return;
    for (const [name, value] of headers) response.setHeader(name, value);
    response.status(status).json(body);
  }
}

/**
 * What an error becomes on the wire: status, body and extra headers (Retry-After); an error that
 * is not an expected CertlaneError is logged with its stack and answered 500.
 */
export function errorReply(
  exception: unknown,
  requestId: string,
  logger: CertlaneLogger,
  path: string,
): { status: number; body: ErrorBody; headers: [string, string][] } {
  const [error, expected] = toCertlaneError(exception);
  if (!expected) logger.error({ err: exception, request_id: requestId, path }, 'unhandled error');
  const { status, body } = errorResponse(error, requestId);
  const headers: [string, string][] = [];
  const retryAfter = retryAfterSeconds(error);
  if (retryAfter !== undefined) headers.push(['Retry-After', String(retryAfter)]);
  return { status, body, headers };
}

/** errorReply written to a bare Node response (a route answered before Express). */
export function writeErrorReply(
  response: ServerResponse,
  exception: unknown,
  requestId: string,
  logger: CertlaneLogger,
  path: string,
): void {
  const { status, body, headers } = errorReply(exception, requestId, logger, path);
  if (response.headersSent) return;
  for (const [name, value] of headers) response.setHeader(name, value);
  writeJson(response, status, JSON.stringify(body));
}

/** A JSON reply as Express's res.json writes it (`application/json; charset=utf-8`, Content-Length). */
export function writeJson(response: ServerResponse, status: number, json: string): void {
  response.statusCode = status;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', Buffer.byteLength(json));
  response.end(json, 'utf8');
}
