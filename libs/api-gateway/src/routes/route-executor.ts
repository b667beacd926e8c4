import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { CertlaneError, ErrorCode, RequestContext, RequestSubject } from '@certlane/contracts';
import {
  BUILD_INFO,
  BuildInfo,
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  LOGGER,
  MESSAGE_BUS,
  MessageBus,
  RequestCoalescer,
  validateDto,
  writeErrorReply,
  writeJson,
} from '@certlane/platform';
import { Actor } from '../auth/actor';
import { assertPermission, credentialsOf } from '../auth/auth.guard';
import { Authenticator, WWW_AUTHENTICATE } from '../auth/authenticator';
import { assertOwnWorkOf } from '../auth/own-work';
import { PrincipalCache } from '../auth/principal-cache';
import { RetiredAgentKeys } from '../auth/retired-agent-keys';
import { assertBodyWasJson, optionalBody } from './request-flags';
import { idempotentResourceId } from '../idempotency/idempotency-key';
import { IdempotencyKeys } from '../idempotency/idempotency-keys';
import { GatewayFacts, RouteDeclaration, RouteInput } from './route-declaration';

/** One request to a declared route, as the front lane or Express hands it over. */
export interface RouteRequest {
  method: string;
  params: Readonly<Record<string, string>>;
  headers: IncomingHttpHeaders;
  requestId: string;
  /** The path, for the log line of an unexpected error and the route of an idempotency key. */
  path: string;
  /** The parsed JSON body (undefined when there is none). */
  body(): Promise<unknown>;
  /** The parsed query string; read by routes that declare a query DTO, and by idempotency keys. */
  query(): Record<string, unknown>;
}

/** A route's success: its status and its body as JSON text (none for a bodiless reply). */
interface Answer {
  status: number;
  json: string | undefined;
}

/**
 * Serves a declared route (ADR 0035) in the order the Nest pipeline worked: the body (parsed
 * before anything else, as Express's middleware does); the break-glass switch; authentication
 * (none on a public route; 401 with WWW-Authenticate; 410 for a retired agent's own key where
 * the route says so); the route's access rule and the agent-work rule; the Idempotency-Key (ADR
 * 0045); the query and body validated against their DTOs and the route's own check; then the bus
 * request (coalesced with others of its route where the route says so, ADR 0036), whose reply is
 * written as it came unless the route shapes it, or the gateway's own answer. Every error gets the
 * exception filter's status and body.
 */
@Injectable()
export class RouteExecutor {
  /** One coalescer per route that coalesces, made on its first request. */
  private readonly coalescers = new Map<RouteDeclaration, RequestCoalescer<RequestSubject>>();
  private readonly facts: GatewayFacts;

  constructor(
    private readonly authenticator: Authenticator,
    private readonly retiredAgents: RetiredAgentKeys,
    private readonly idempotencyKeys: IdempotencyKeys,
    private readonly principals: PrincipalCache,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(BUILD_INFO) build: BuildInfo,
  ) {
    this.facts = { config, build };
  }

  async serve(route: RouteDeclaration, request: RouteRequest, response: ServerResponse): Promise<void> {
    try {
      const rawBody = await request.body();
      if (route.breakGlass && !this.config.breakGlass.enabled) {
        throw new CertlaneError(ErrorCode.RouteNotFound, 'break-glass is disabled');
      }
      const actor = route.public ? undefined : await this.authenticate(route, request, response);
      if (actor) this.authorize(route, actor, request.params);
      const context: RequestContext = { request_id: request.requestId, actor_id: actor?.id };
      const header = request.headers['idempotency-key'];
      const attempt =
        route.idempotent && header !== undefined
          ? await this.idempotencyKeys.begin({
              header,
              actorId: actor?.id,
              route: `${request.method} ${request.path}`,
              query: request.query(),
              body: rawBody,
              context,
              waitMs: route.timeoutMs,
            })
          : undefined;
      if (attempt?.replayed) {
        response.setHeader('idempotent-replayed', 'true');
        return writeJson(response, route.status, JSON.stringify(attempt.body ?? null));
      }
      let answer: Answer;
      try {
        const input = await this.input(route, request, rawBody, actor);
        route.check?.(input);
        answer = await this.answer(route, input, context, attempt?.key);
        await attempt?.finished(
          answer.status,
          answer.json === undefined ? undefined : JSON.parse(answer.json),
        );
      } catch (error) {
        await attempt?.abandoned();
        throw error;
      }
      this.evict(route, request.params);
      if (answer.json === undefined) {
        response.statusCode = answer.status;
        response.end();
      } else {
        writeJson(response, answer.status, answer.json);
      }
    } catch (error) {
      writeErrorReply(response, error, request.requestId, this.logger, request.path);
    }
  }

  private authenticate(
    route: RouteDeclaration,
    request: RouteRequest,
    response: ServerResponse,
  ): Promise<Actor> {
    const credentials = credentialsOf(request, request.requestId);
    return this.authenticator.authenticate(credentials).catch(async (error: unknown) => {
      const refusal = route.retiredAgent
        ? await this.retiredAgents.refusalFor(error, credentials, request.params.id)
        : error;
      if (refusal instanceof CertlaneError && refusal.code === ErrorCode.Unauthenticated) {
        response.setHeader(...WWW_AUTHENTICATE);
      }
      throw refusal;
    });
  }

  private authorize(route: RouteDeclaration, actor: Actor, params: RouteRequest['params']): void {
    if (route.adminOnly && !actor.admin) {
      throw new CertlaneError(ErrorCode.Forbidden, 'this route is for admins only');
    }
    if (route.permission) assertPermission(actor, route.permission);
    if (route.ownWork) assertOwnWorkOf(actor, params.id);
  }

  private async input(
    route: RouteDeclaration,
    request: RouteRequest,
    rawBody: unknown,
    actor: Actor | undefined,
  ): Promise<RouteInput<object, object>> {
    const query = route.query ? await validateDto(route.query, request.query()) : {};
    if (route.body) assertBodyWasJson(request.headers, rawBody);
    const body = route.body
      ? await (route.optionalBody
          ? optionalBody(route.body, { body: rawBody })
          : validateDto(route.body, rawBody))
      : (undefined as unknown as object);
    return { params: request.params, body, query, actor };
  }

  private async answer(
    route: RouteDeclaration,
    input: RouteInput<object, object>,
    context: RequestContext,
    idempotencyKey: string | undefined,
  ): Promise<Answer> {
    if (route.answer) return { status: route.status, json: JSON.stringify(route.answer(input, this.facts)) };
    let payload = route.payload(input) as { id?: string };
    const keyedId =
      route.keyedId && idempotencyKey !== undefined && payload.id === undefined
        ? idempotentResourceId(route.keyedId.prefix, context.actor_id ?? '', idempotencyKey)
        : undefined;
    if (keyedId !== undefined) payload = { ...payload, id: keyedId };
    const json = await this.request(route, payload, context).catch((error: unknown) => {
      if (
        keyedId === undefined ||
        !(error instanceof CertlaneError) ||
        error.code !== route.keyedId?.exists
      ) {
        throw error;
      }
      return this.bus.requestRaw(route.keyedId.get, { id: keyedId } as never, { context });
    });
    if (!route.statusOf && !route.reply) {
      return { status: route.status, json: route.response === null ? undefined : json };
    }
    const reply = JSON.parse(json) as never;
    const status = route.statusOf?.(reply) ?? route.status;
    const bodiless = (status === route.status ? route.response : route.alsoStatus?.[status]) === null;
    return {
      status,
      json: bodiless ? undefined : route.reply ? JSON.stringify(route.reply(reply)) : json,
    };
  }

  private request(route: RouteDeclaration, payload: object, context: RequestContext): Promise<string> {
    const subject = route.subject as RequestSubject;
    if (!route.coalesce)
      return this.bus.requestRaw(subject, payload as never, { context, timeoutMs: route.timeoutMs });
    let coalescer = this.coalescers.get(route);
    if (!coalescer) this.coalescers.set(route, (coalescer = new RequestCoalescer(this.bus, subject)));
    return coalescer.requestRaw(payload as never, context);
  }

  /** The principal cache forgets what the route changed, so the next request sees it at once. */
  private evict(route: RouteDeclaration, params: RouteRequest['params']): void {
    if (route.evicts === 'api-key') this.principals.dropKey(params.id);
    if (route.evicts === 'actor') this.principals.dropActor(params.id);
  }
}
