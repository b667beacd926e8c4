import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { CertlaneError, ErrorCode, RequestSubject } from '@certlane/contracts';
import {
  CertlaneLogger,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
  RequestCoalescer,
  validateDto,
  writeErrorReply,
  writeJson,
} from '@certlane/platform';
import { assertOwnWorkOf } from '../agent-work/agent-work.controller';
import { assertPermission, credentialsOf } from '../auth/auth.guard';
import { Authenticator, WWW_AUTHENTICATE } from '../auth/authenticator';
import { RetiredAgentKeys } from '../auth/retired-agent-keys';
import { optionalBody } from '../certificates/request-flags';
import { DECLARED_ROUTES } from './declared-routes';
import { RouteDeclaration } from './route-declaration';

/** One request to a declared route, as the front lane or Express hands it over. */
export interface RouteRequest {
  method: string;
  params: Readonly<Record<string, string>>;
  headers: IncomingHttpHeaders;
  requestId: string;
  /** The path, for the log line of an unexpected error. */
  path: string;
  /** The parsed JSON body (undefined when there is none). */
  body(): Promise<unknown>;
  /** The parsed query string; read only by routes that declare a query DTO. */
  query(): Record<string, unknown>;
}

/**
 * Serves a declared route (ADR 0035) in the order the Nest pipeline worked: the body (parsed
 * before anything else, as Express's middleware does); authentication (401 with
 * WWW-Authenticate; 410 for a retired agent's own key where the route says so); the route's
 * access rule and the agent-work rule; the query and body validated against their DTOs; the bus
 * request (coalesced with others of its route where the route says so, ADR 0036), whose reply is
 * written as it came. Every error gets the exception filter's status and body.
 */
@Injectable()
export class RouteExecutor {
  private readonly coalescers: Map<RouteDeclaration, RequestCoalescer<RequestSubject>>;

  constructor(
    private readonly authenticator: Authenticator,
    private readonly retiredAgents: RetiredAgentKeys,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {
    this.coalescers = new Map(
      DECLARED_ROUTES.filter((route) => route.coalesce).map((route) => [
        route,
        new RequestCoalescer(bus, route.subject),
      ]),
    );
  }

  async serve(route: RouteDeclaration, request: RouteRequest, response: ServerResponse): Promise<void> {
    try {
      const rawBody = await request.body();
      const credentials = credentialsOf(request, request.requestId);
      const actor = await this.authenticator.authenticate(credentials).catch(async (error: unknown) => {
        const refusal = route.retiredAgent
          ? await this.retiredAgents.refusalFor(error, credentials, request.params.id)
          : error;
        if (refusal instanceof CertlaneError && refusal.code === ErrorCode.Unauthenticated) {
          response.setHeader(...WWW_AUTHENTICATE);
        }
        throw refusal;
      });
      if (route.adminOnly && !actor.admin) {
        throw new CertlaneError(ErrorCode.Forbidden, 'this route is for admins only');
      }
      if (route.permission) assertPermission(actor, route.permission);
      if (route.ownWork) assertOwnWorkOf(actor, request.params.id);
      const query = route.query ? await validateDto(route.query, request.query()) : {};
      const body = route.body
        ? await (route.optionalBody
            ? optionalBody(route.body, { body: rawBody })
            : validateDto(route.body, rawBody))
        : undefined;
      const payload = route.payload({ params: request.params, body: body as object, query });
      const context = { request_id: request.requestId, actor_id: actor.id };
      const coalescer = this.coalescers.get(route);
      const json = coalescer
        ? await coalescer.requestRaw(payload, context)
        : await this.bus.requestRaw(route.subject, payload, { context });
      if (route.response === null) {
        response.statusCode = route.status;
        response.end();
      } else {
        writeJson(response, route.status, json);
      }
    } catch (error) {
      writeErrorReply(response, error, request.requestId, this.logger, request.path);
    }
  }
}
