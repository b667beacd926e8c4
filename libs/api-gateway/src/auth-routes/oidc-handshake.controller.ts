import { Controller, Get, HttpCode, Inject, Post, Query, Req, Res } from '@nestjs/common';
import express, { Request, Response } from 'express';
import {
  BeginOidcLoginQuery,
  CertlaneError,
  ErrorCode,
  OIDC_PENDING_COOKIE,
  OIDC_PRELOGIN_SECONDS,
  OidcFailureReason,
  SESSION_LIFETIME_SECONDS,
} from '@certlane/contracts';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  clientIp,
  MESSAGE_BUS,
  MessageBus,
  PublicRoute,
} from '@certlane/platform';
import { busContext } from '../auth/actor';
import { readCookie, sessionCookies } from '../auth/session-cookies';
import { Documented } from '../operation-facts/operation-facts';

/** Where a signed-in browser lands: the GUI. */
const POST_LOGIN_PATH = '/';
/** Logout tokens are a few KiB; anything larger is not one. */
const LOGOUT_FORM_LIMIT = '64kb';

/** The single-use pre-login cookie of spec 5.4: Path /auth/oidc/, 600 s, SameSite Lax. */
export function pendingCookie(value: string, maxAgeSeconds: number): string {
  return `${OIDC_PENDING_COOKIE}=${value}; Max-Age=${maxAgeSeconds}; Path=/auth/oidc/; Secure; HttpOnly; SameSite=Lax`;
}

export function failureLocation(reason: OidcFailureReason): string {
  return `/login?error=oidc_failed&reason=${encodeURIComponent(reason)}`;
}

const parseForm = express.urlencoded({ extended: false, limit: LOGOUT_FORM_LIMIT, parameterLimit: 10 });

/**
 * The OIDC handshake routes (spec 4.10, 5.5; ADR 0081): public, answered only when
 * SERVICE_AUTH_TYPE=oidc (404 otherwise). The auth service does the protocol; this controller
 * moves cookies and redirects.
 */
@Controller('auth/oidc')
export class OidcHandshakeController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
  ) {}

  @Get('login')
  @PublicRoute()
  @Documented({
    operationId: 'oidcLogin',
    summary: 'Start an OIDC sign-in: 302 to the identity provider with the pending cookie set',
    status: 302,
    errors: [400, 404, 429],
    response: null,
  })
  async login(
    @Query() query: BeginOidcLoginQuery,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    this.assertOidcMode();
    const begun = await this.bus.request(
      'auth.v1.oidc-begin-login',
      { provider: query.provider, ...browserFacts(request) },
      { context: busContext(request) },
    );
    if (!begun.ok) return redirect(response, failureLocation(begun.reason));
    response.setHeader('Set-Cookie', pendingCookie(begun.pending_cookie, OIDC_PRELOGIN_SECONDS));
    redirect(response, begun.redirect_url);
  }

  @Get('callback')
  @PublicRoute()
  @Documented({
    operationId: 'oidcCallback',
    summary:
      'The identity provider returns here: 302 to the GUI with the session and CSRF cookies, or to /login?error=oidc_failed&reason=<category>',
    status: 302,
    errors: [404],
    response: null,
  })
  async callback(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.assertOidcMode();
    const queryAt = request.originalUrl.indexOf('?');
    const completed = await this.bus.request(
      'auth.v1.oidc-complete-login',
      {
        pending_cookie: readCookie(request.header('cookie'), OIDC_PENDING_COOKIE),
        callback_query: queryAt < 0 ? '' : request.originalUrl.slice(queryAt + 1),
        ...browserFacts(request),
      },
      { context: busContext(request) },
    );
    const cleared = pendingCookie('', 0);
    if (!completed.ok) {
      response.setHeader('Set-Cookie', cleared);
      return redirect(response, failureLocation(completed.reason));
    }
    response.setHeader('Set-Cookie', [
      cleared,
      ...sessionCookies(
        completed.session_cookie,
        completed.csrf_token,
        this.config.session.sameSite,
        SESSION_LIFETIME_SECONDS,
      ),
    ]);
    redirect(response, POST_LOGIN_PATH);
  }

  /**
   * OpenID Connect Back-Channel Logout 1.0 2.5-2.8: the IdP posts `logout_token`; 200 when the
   * sessions it names are revoked, the same 400 for every failure (the audit record says why).
   */
  @Post('back-channel-logout')
  @HttpCode(200)
  @PublicRoute()
  @Documented({
    operationId: 'oidcBackChannelLogout',
    summary: 'Back-channel logout from an identity provider (form field logout_token)',
    status: 200,
    errors: [400, 404],
    response: null,
  })
  async backChannelLogout(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.assertOidcMode();
    response.setHeader('Cache-Control', 'no-store');
    const token = await readLogoutToken(request, response);
    const result =
      token === undefined
        ? { ok: false }
        : await this.bus.request(
            'auth.v1.oidc-back-channel-logout',
            { logout_token: token, client_ip: clientIp(request) },
            { context: busContext(request) },
          );
    if (!result.ok) throw new CertlaneError(ErrorCode.ValidationFailed, 'the logout token was not accepted');
    response.status(200).end();
  }

  private assertOidcMode(): void {
    if (this.config.auth.type !== 'oidc') {
      throw new CertlaneError(
        ErrorCode.RouteNotFound,
        'OIDC sign-in is not enabled (SERVICE_AUTH_TYPE=oidc)',
      );
    }
  }
}

/** A 302 without a body (the API description documents none), never cached. */
function redirect(response: Response, location: string): void {
  response.status(302).setHeader('Cache-Control', 'no-store');
  response.setHeader('Location', location);
  response.end();
}

function browserFacts(request: Request): { client_ip: string; user_agent: string } {
  return { client_ip: clientIp(request), user_agent: (request.header('user-agent') ?? '').slice(0, 2048) };
}

/** The form's `logout_token`, or undefined when the body is not such a form. */
function readLogoutToken(request: Request, response: Response): Promise<string | undefined> {
  if (!request.is('application/x-www-form-urlencoded')) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    parseForm(request, response, (error?: unknown) => {
      const token = (request.body as Record<string, unknown> | undefined)?.['logout_token'];
      resolve(
        !error && typeof token === 'string' && token.length > 0 && token.length <= 16384 ? token : undefined,
      );
    });
  });
}
