import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import {
  acceptRequestId,
  assertSafeUrl,
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  FastLane,
  installInFront,
  jsonBodyParser,
  LOGGER,
  METRICS,
  Metrics,
  parseQuery,
  RequestObserver,
  requestObserver,
  securityHeaderValues,
  writeErrorReply,
} from '@certlane/platform';
import { DECLARED_ROUTES } from '../declared-routes';
import { RouteDeclaration } from '../routes/route-declaration';
import { RouteExecutor } from '../routes/route-executor';
import { RouteMatcher } from './route-matcher';

export interface GatewayFastLaneDeps {
  routes: readonly RouteDeclaration[];
  executor: Pick<RouteExecutor, 'serve'>;
  observe: RequestObserver;
  logger: CertlaneLogger;
  parseJson: (request: Request, response: Response, next: (error?: unknown) => void) => void;
}

/**
 * The declared routes answered before Express and Nest (ADR 0035): what the Express middleware
 * does first (request id, security headers, access log and metrics, URL and body guards), then the
 * route executor. A request with an Origin header (CORS is Express's) or that the route matcher
 * does not take in its one exact spelling goes on to Express, where the same executor serves it.
 */
export function gatewayFastLane(deps: GatewayFastLaneDeps): FastLane {
  const matcher = new RouteMatcher(
    deps.routes.map((route) => ({ ...route, query: route.query !== undefined, value: route })),
  );
  const security = securityHeaderValues();

  const readBody = (request: IncomingMessage, response: ServerResponse) =>
    new Promise<unknown>((resolve, reject) =>
      deps.parseJson(request as Request, response as Response, (error?: unknown) =>
        error ? reject(error) : resolve((request as Request).body),
      ),
    );

  const serve = (
    route: RouteDeclaration,
    params: Record<string, string>,
    query: string,
    request: IncomingMessage,
    response: ServerResponse,
  ) => {
    const requestId = acceptRequestId(request.headers['x-request-id']);
    response.setHeader('X-Request-Id', requestId);
    for (const [name, value] of security) response.setHeader(name, value);
    deps.observe(request, response, requestId, () => route.path);
    const path = (request.url ?? '').split('?')[0];
    try {
      assertSafeUrl(request.url ?? '');
    } catch (error) {
      return writeErrorReply(response, error, requestId, deps.logger, path);
    }
    void deps.executor.serve(
      route,
      {
        method: route.method,
        params,
        headers: request.headers,
        requestId,
        path,
        body: () => (route.method === 'GET' ? Promise.resolve(undefined) : readBody(request, response)),
        // The query parser Express has (configureHttp): querystring, held to the input bounds.
        query: () => parseQuery(query),
      },
      response,
    );
  };

  return (request, response, next) => {
    if (request.headers.origin !== undefined) return next();
    const match = matcher.match(request.method, request.url);
    if (!match) return next();
    serve(match.value, match.params, match.query, request, response);
  };
}

/** Installs the fast lane on the gateway's HTTPS listener at boot, unless SERVICE_GATEWAY_FAST_LANE=false. */
@Injectable()
export class GatewayFastLaneInstaller implements OnApplicationBootstrap {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly executor: RouteExecutor,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(METRICS) private readonly metrics: Metrics,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.gatewayFastLane) return;
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server || typeof server.listeners !== 'function') return;
    installInFront(
      server,
      gatewayFastLane({
        routes: DECLARED_ROUTES,
        executor: this.executor,
        observe: requestObserver(this.logger, this.metrics),
        logger: this.logger,
        parseJson: jsonBodyParser(this.config),
      }),
    );
  }
}
