import { INestApplication } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import express from 'express';
import helmet from 'helmet';
import { CertlaneConfig } from '../config/certlane-config';
import { CertlaneLogger } from '../logging/logger';
import { Metrics } from '../observability/metrics';
import { assertSafeInput, assertSafeUrl, parseQuery } from '../validation/input-guard';
import { CertlaneExceptionFilter } from './exception-filter';
import { requestIdMiddleware, requestIdOf } from './request-id';
import { toCertlaneError } from './to-certlane-error';
import { DtoValidationPipe } from './validation-pipe';

/**
 * The HTTP conventions every Certlane listener shares: request ids, access log and metrics,
 * security headers, a JSON body limit, CORS for the configured origins only, DTO validation and
 * the one error body.
 */
export function configureHttp(
  app: INestApplication,
  deps: { config: CertlaneConfig; logger: CertlaneLogger; metrics: Metrics },
): void {
  const { config, logger, metrics } = deps;
  const server = app.getHttpAdapter().getInstance() as express.Express;
  server.disable('x-powered-by');
  // API responses are small, uncached JSON: hashing every body for an ETag costs more than it saves.
  server.set('etag', false);
  // SERVICE_TRUSTED_PROXIES: request.ip comes from X-Forwarded-For only through these hops.
  server.set('trust proxy', config.trustedProxies.length > 0 ? config.trustedProxies : false);
  // Express's `simple` parser (querystring), held to the input bounds (ADR 0040).
  server.set('query parser', parseQuery);
  // helmet's headers do not depend on the request: computed once, set per response.
  const securityHeaders = securityHeaderValues();
  const parseJson = jsonBodyParser(config);
  const observe = requestObserver(logger, metrics);
  const routeOf = (request: Request) => () =>
    (request.route as { path?: string } | undefined)?.path ?? 'unmatched';
  // One middleware rather than four router layers: every request pays for each layer.
  app.use((request: Request, response: Response, next: NextFunction) => {
    requestIdMiddleware(request, response, () => undefined);
    observe(request, response, requestIdOf(request), routeOf(request));
    for (const [name, value] of securityHeaders) response.setHeader(name, value);
    try {
      assertSafeUrl(request.url);
    } catch (error) {
      return next(error);
    }
    if (request.method === 'GET' || request.method === 'HEAD') return next();
    // ACME bodies are read by the ACME routes themselves: a body that is not JSON must be answered
    // with an ACME problem document (RFC 8555 6.7), not this listener's error body (ADR 0053).
    if (request.path.startsWith('/acme/')) return next();
    parseJson(request, response, next);
  });
  // Body-parser failures become coded errors here, before Nest turns them into a generic 400.
  app.use((error: unknown, _request: Request, _response: Response, next: NextFunction) => {
    const [mapped, expected] = toCertlaneError(error);
    next(expected ? mapped : error);
  });
  if (config.corsOrigins.length > 0) {
    app.enableCors({
      origin: config.corsOrigins.includes('*') ? true : config.corsOrigins,
      credentials: !config.corsOrigins.includes('*'),
      exposedHeaders: ['X-Request-Id'],
    });
  }
  app.useGlobalPipes(new DtoValidationPipe());
  app.useGlobalFilters(new CertlaneExceptionFilter(logger));
}

/**
 * The JSON body parser of every listener (also for requests answered before Express): the parsed
 * body is held to the input bounds (ADR 0040) before anything else reads it.
 */
export function jsonBodyParser(
  config: Pick<CertlaneConfig, 'maxRequestBodyBytes'>,
): (request: Request, response: Response, next: (error?: unknown) => void) => void {
  const parse = express.json({
    limit: config.maxRequestBodyBytes,
    strict: true,
    type: ['application/json', 'application/*+json'],
  });
  return (request, response, next) =>
    parse(request, response, (error?: unknown) => {
      if (error) return next(error);
      try {
        assertSafeInput(request.body, 'body');
      } catch (refused) {
        return next(refused);
      }
      next();
    });
}

function createSecurityHeaders() {
  return helmet({
    contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    hsts: { maxAge: 31536000, includeSubDomains: true },
    crossOriginResourcePolicy: { policy: 'same-origin' },
  });
}

let staticSecurityHeaders: ReadonlyArray<readonly [string, string]> | undefined;

/**
 * The security headers every Certlane response carries (helmet with the settings above; none
 * depends on the request), for a route that answers without Express.
 */
export function securityHeaderValues(): ReadonlyArray<readonly [string, string]> {
  if (!staticSecurityHeaders) {
    const recorded = new Map<string, string>();
    const response = {
      setHeader: (name: string, value: string | number | readonly string[]) =>
        recorded.set(name, String(value)),
      removeHeader: (name: string) => recorded.delete(name),
    };
    let failure: unknown;
    createSecurityHeaders()({} as Request, response as unknown as Response, (error?: unknown) => {
      failure = error;
    });
    if (failure) throw failure;
    staticSecurityHeaders = Object.freeze(
      [...recorded].map(([name, value]) => Object.freeze([name, value] as const)),
    );
  }
  return staticSecurityHeaders;
}

/**
 * The access log line and HTTP metrics of one request, recorded when its response finishes: for
 * Express requests and for requests answered before Express (a fast lane), which name their
 * route pattern themselves.
 */
export type RequestObserver = (
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  route: () => string,
) => void;

export function requestObserver(logger: CertlaneLogger, metrics: Metrics): RequestObserver {
  const observe = metrics.httpObserver();
  return (request, response, requestId, route) => {
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const method = request.method ?? '';
      observe(method, route(), response.statusCode, seconds);
      if (!logger.isLevelEnabled('info')) return;
      const url = request.url ?? '';
      const query = url.indexOf('?');
      logger.info(
        {
          request_id: requestId,
          method,
          path: query < 0 ? url : url.slice(0, query),
          status: response.statusCode,
          duration_ms: Math.round(seconds * 100000) / 100,
        },
        'request',
      );
    });
  };
}
