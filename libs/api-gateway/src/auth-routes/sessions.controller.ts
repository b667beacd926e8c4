import { PrincipalCache } from '../auth/principal-cache';
import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  CertlaneError,
  CSRF_HEADER,
  ErrorCode,
  ListSessionsQuery,
  OidcEndSession,
  Page,
  SESSION_COOKIE,
  SessionDto,
  SessionsRevoked,
} from '@certlane/contracts';
import { CERTLANE_CONFIG, CertlaneConfig, MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { Actor, actorOf, busContext } from '../auth/actor';
import { AnyAuthenticated, RequirePermission, SessionRoute } from '../auth/route-access';
import { clearedSessionCookies, readCookie } from '../auth/session-cookies';
import { Documented } from '../operation-facts/operation-facts';

function caller(request: Request): Actor {
  const actor = actorOf(request);
  if (!actor) throw new CertlaneError(ErrorCode.Unauthenticated, 'not authenticated');
  return actor;
}

/** Sessions (spec 4.10, 5.4; docs/decisions/0017-sessions-and-csrf.md). */
@Controller('api/v1/auth/sessions')
export class SessionsController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly principals: PrincipalCache,
  ) {}

  /** The caller's own sessions; `?all=true` every actor's (auth.session.list.all). */
  @Get()
  @RequirePermission('auth.session.list')
  @Documented({
    operationId: 'listSessions',
    summary: "The caller's sessions, or with `all=true` every actor's",
    status: 200,
    errors: [403],
    response: 'Page<SessionDto>',
  })
  list(@Query() query: ListSessionsQuery, @Req() request: Request): Promise<Page<SessionDto>> {
    const actor = caller(request);
    if (query.all && !actor.permissions.has('auth.session.list.all')) {
      throw new CertlaneError(
        ErrorCode.Forbidden,
        'listing every session needs the permission auth.session.list.all',
        {
          permission: 'auth.session.list.all',
        },
      );
    }
    return this.bus.request(
      'auth.v1.list-sessions',
      { ...query, actor_id: actor.id, current_session_id: actor.sessionId },
      { context: busContext(request) },
    );
  }

  /** Own sessions may always be revoked; another actor's needs auth.session.revoke (403). */
  @Delete(':id')
  @HttpCode(204)
  @AnyAuthenticated()
  @Documented({
    operationId: 'revokeSession',
    summary: "Revoke a session: one's own always, another actor's with auth.session.revoke",
    status: 204,
    errors: [403, 404],
    response: null,
  })
  async revoke(@Param('id') id: string, @Req() request: Request): Promise<void> {
    const actor = caller(request);
    const revoked = await this.bus.request(
      'auth.v1.revoke-session',
      { id, actor_id: actor.id, may_revoke_others: actor.permissions.has('auth.session.revoke') },
      { context: busContext(request) },
    );
    this.principals.dropSession(revoked.id);
  }

  /** Revokes every session of the caller except the one this request came with. */
  @Delete()
  @HttpCode(200)
  @AnyAuthenticated()
  @Documented({
    operationId: 'revokeOtherSessions',
    summary: 'Revoke every session of the caller but the current one',
    status: 200,
    errors: [403],
    response: 'SessionsRevoked',
  })
  async revokeOthers(@Req() request: Request): Promise<SessionsRevoked> {
    const actor = caller(request);
    const revoked = await this.bus.request(
      'auth.v1.revoke-other-sessions',
      { actor_id: actor.id, keep_session_id: actor.sessionId },
      { context: busContext(request) },
    );
    this.principals.dropActor(actor.id);
    return revoked;
  }
}

/** POST /auth/logout (spec 4.10, 5.2): checks the session cookie itself, then clears both cookies. */
@Controller('auth')
export class LogoutController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    private readonly principals: PrincipalCache,
  ) {}

  @Post('logout')
  @HttpCode(204)
  @SessionRoute()
  @Documented({
    operationId: 'logout',
    summary:
      "End the session of the cookie and clear both cookies; 200 with the identity provider's end-session URL for a session opened through OIDC",
    status: 204,
    alsoStatus: { 200: 'OidcEndSession' },
    errors: [401, 403],
    response: null,
  })
  async logout(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<OidcEndSession | undefined> {
    const cookie = readCookie(request.header('cookie'), SESSION_COOKIE);
    if (!cookie || cookie.length > 512) {
      throw new CertlaneError(ErrorCode.Unauthenticated, 'logout needs a valid service_session cookie');
    }
    const loggedOut = await this.bus.request(
      'auth.v1.logout',
      {
        cookie,
        user_agent: (request.header('user-agent') ?? '').slice(0, 2048),
        csrf_token: request.header(CSRF_HEADER)?.slice(0, 256),
      },
      { context: busContext(request) },
    );
    this.principals.dropSession(loggedOut.session_id);
    response.setHeader('Set-Cookie', clearedSessionCookies(this.config.session.sameSite));
    if (!loggedOut.end_session_url) return undefined;
    // OpenID Connect RP-Initiated Logout 1.0: the browser goes on to the identity provider.
    response.status(200);
    return { end_session_url: loggedOut.end_session_url };
  }
}
