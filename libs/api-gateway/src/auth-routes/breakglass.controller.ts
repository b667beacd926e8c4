import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  BreakGlassLoginRequest,
  BreakGlassLoginResponse,
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
import { BreakGlassRoute } from '../auth/route-access';
import { sessionCookies } from '../auth/session-cookies';
import { Documented } from '../operation-facts/operation-facts';

/** POST /auth/breakglass/login (spec 5.7): public, 404 while break-glass is disabled. */
@Controller('auth/breakglass')
@BreakGlassRoute()
export class BreakGlassLoginController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
  ) {}

  @Post('login')
  @HttpCode(200)
  @PublicRoute()
  @Documented({
    operationId: 'breakglassLogin',
    summary: 'Sign in with a break-glass credential; sets the session and CSRF cookies',
    status: 200,
    errors: [401, 404, 423, 429],
    response: 'BreakGlassLoginResponse',
  })
  async login(
    @Body() body: BreakGlassLoginRequest,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BreakGlassLoginResponse> {
    const result = await this.bus.request(
      'auth.v1.breakglass-login',
      {
        actor_id: body.actor_id,
        password: body.password,
        client_ip: clientIp(request),
        user_agent: (request.header('user-agent') ?? '').slice(0, 2048),
      },
      { context: busContext(request) },
    );
    response.setHeader(
      'Set-Cookie',
      sessionCookies(
        result.session_cookie,
        result.csrf_token,
        this.config.session.sameSite,
        SESSION_LIFETIME_SECONDS,
      ),
    );
    return {
      actor_id: result.actor_id,
      session_id: result.session_id,
      expires_at: result.expires_at,
      csrf_token: result.csrf_token,
    };
  }
}
