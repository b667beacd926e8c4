import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const REQUEST_ID = Symbol('certlane.requestId');
const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes a well-formed inbound X-Request-Id (from a proxy) or makes one; echoes it back. */
export function requestIdMiddleware(request: Request, response: Response, next: NextFunction): void {
  const inbound = request.header('x-request-id');
  const id = inbound && ACCEPTABLE.test(inbound) ? inbound : randomUUID();
  (request as unknown as Record<symbol, string>)[REQUEST_ID] = id;
  response.setHeader('X-Request-Id', id);
  next();
}

export function requestIdOf(request: Request): string {
  return (request as unknown as Record<symbol, string | undefined>)[REQUEST_ID] ?? 'unknown';
}
