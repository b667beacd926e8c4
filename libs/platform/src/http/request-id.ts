import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const REQUEST_ID = Symbol('certlane.requestId');
const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** A well-formed inbound X-Request-Id (from a proxy), or a new one. */
export function acceptRequestId(inbound: string | string[] | undefined): string {
  return typeof inbound === 'string' && ACCEPTABLE.test(inbound) ? inbound : randomUUID();
}

/** Takes a well-formed inbound X-Request-Id (from a proxy) or makes one; echoes it back. */
export function requestIdMiddleware(request: Request, response: Response, next: NextFunction): void {
  const id = acceptRequestId(request.header('x-request-id'));
  setRequestId(request, id);
  response.setHeader('X-Request-Id', id);
  next();
}

/** Records the request's id where requestIdOf finds it (for a request that skipped the middleware). */
export function setRequestId(request: object, id: string): void {
  (request as Record<symbol, string>)[REQUEST_ID] = id;
}

export function requestIdOf(request: Request): string {
  return (request as unknown as Record<symbol, string | undefined>)[REQUEST_ID] ?? 'unknown';
}
