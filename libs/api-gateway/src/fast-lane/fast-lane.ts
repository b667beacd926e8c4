import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import { CertlaneError, CSRF_HEADER, ErrorCode } from '@certlane/contracts';
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
  MESSAGE_BUS,
  MessageBus,
  METRICS,
  Metrics,
  parseQuery,
  RequestCoalescer,
  RequestObserver,
  requestObserver,
  securityHeaderValues,
  writeErrorReply,
  writeJson,
} from '@certlane/platform';
import { assertOwnWorkOf } from '../agent-work/agent-work.controller';
import { assertPermission } from '../auth/auth.guard';
import { Authenticator, Credentials, WWW_AUTHENTICATE } from '../auth/authenticator';
import { RetiredAgentKeys } from '../auth/retired-agent-keys';
import { FORWARDING_ROUTES, ForwardingRoute } from './forwarding-routes';
import { RouteMatcher } from './route-matcher';

export interface GatewayFastLaneDeps {
  routes: readonly ForwardingRoute[];
  authenticator: Pick<Authenticator, 'authenticate'>;
  retiredAgents: Pick<RetiredAgentKeys, 'refusalFor'>;
  bus: Pick<MessageBus, 'requestRaw' | 'requestBatch'>;
  observe: RequestObserver;
  logger: CertlaneLogger;
  parseJson: (request: Request, response: Response, next: (error?: unknown) => void) => void;
}

/**
 * The gateway's forwarding routes answered before Express and Nest (ADR 0035), in the order the
 * Nest pipeline works: request id, security headers, access log and metrics; the JSON body;
 * authentication (401 with WWW-Authenticate), the route permission, the agent-work rule; the
 * payload validated as the controller validates it; the bus request (coalesced with others of
 * its route where the route says so, ADR 0036), whose reply is written as it came. Every error gets the exception filter's status and body. A request with an Origin
 * header (CORS is Express's) or that the route matcher does not take goes on to Express.
 */
export function gatewayFastLane(deps: GatewayFastLaneDeps): FastLane {
  const matcher = new RouteMatcher(deps.routes.map((route) => ({ ...route, value: route })));
  const security = securityHeaderValues();
  const coalescers = new Map(
    deps.routes
      .filter((route) => route.coalesce)
      .map((route) => [route, new RequestCoalescer(deps.bus, route.subject)]),
  );

  const readBody = (request: IncomingMessage, response: ServerResponse) =>
    new Promise<unknown>((resolve, reject) =>
      deps.parseJson(request as Request, response as Response, (error?: unknown) =>
        error ? reject(error) : resolve((request as Request).body),
      ),
    );

  const serve = async (
    route: ForwardingRoute,
    params: Record<string, string>,
    query: string,
    request: IncomingMessage,
    response: ServerResponse,
  ) => {
    const requestId = acceptRequestId(request.headers['x-request-id']);
    response.setHeader('X-Request-Id', requestId);
    for (const [name, value] of security) response.setHeader(name, value);
    deps.observe(request, response, requestId, () => route.path);
    try {
      assertSafeUrl(request.url ?? '');
      const body = route.method === 'POST' ? await readBody(request, response) : undefined;
      const headers = request.headers;
      const credentials: Credentials = {
        method: route.method,
        requestId,
        authorization: headers.authorization,
        cookie: headers.cookie,
        userAgent: headers['user-agent'],
        csrfToken: single(headers[CSRF_HEADER.toLowerCase()]),
      };
      const actor = await deps.authenticator.authenticate(credentials).catch(async (error: unknown) => {
        const refusal = route.retiredAgent
          ? await deps.retiredAgents.refusalFor(error, credentials, params.id)
          : error;
        if (refusal instanceof CertlaneError && refusal.code === ErrorCode.Unauthenticated) {
          response.setHeader(...WWW_AUTHENTICATE);
        }
        throw refusal;
      });
      assertPermission(actor, route.permission);
      if (route.ownWork) assertOwnWorkOf(actor, params.id);
      // The query parser Express has (configureHttp): querystring, held to the input bounds.
      const payload = await route.payload(params, body, parseQuery(query));
      const context = { request_id: requestId, actor_id: actor.id };
      const coalescer = coalescers.get(route);
      const json = coalescer
        ? await coalescer.requestRaw(payload, context)
        : await deps.bus.requestRaw(route.subject, payload, { context });
      writeJson(response, route.status, json);
    } catch (error) {
      writeErrorReply(response, error, requestId, deps.logger, (request.url ?? '').split('?')[0]);
    }
  };

  return (request, response, next) => {
    if (request.headers.origin !== undefined) return next();
    const match = matcher.match(request.method, request.url);
    if (!match) return next();
    void serve(match.value, match.params, match.query, request, response);
  };
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Installs the fast lane on the gateway's HTTPS listener at boot, unless SERVICE_GATEWAY_FAST_LANE=false. */
@Injectable()
export class GatewayFastLaneInstaller implements OnApplicationBootstrap {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly authenticator: Authenticator,
    private readonly retiredAgents: RetiredAgentKeys,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
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
        routes: FORWARDING_ROUTES,
        authenticator: this.authenticator,
        retiredAgents: this.retiredAgents,
        bus: this.bus,
        observe: requestObserver(this.logger, this.metrics),
        logger: this.logger,
        parseJson: jsonBodyParser(this.config),
      }),
    );
  }
}
