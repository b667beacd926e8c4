import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { isIP } from 'node:net';
import {
  BreakGlassCredentialDto,
  BreakGlassLoginRequest,
  BreakGlassLoginResponse,
  Page,
  PageQuery,
  SESSION_LIFETIME_SECONDS,
  SetBreakGlassCredentialRequest,
} from '@certlane/contracts';
import { CERTLANE_CONFIG, CertlaneConfig, MESSAGE_BUS, MessageBus, PublicRoute } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { BreakGlassRoute, RequirePermission } from '../auth/route-access';
import { sessionCookies } from '../auth/session-cookies';
import { Documented } from '../openapi/operation-facts';

/**
 * The client IP of a request: the TCP peer, or the X-Forwarded-For entry Express picks through
 * SERVICE_TRUSTED_PROXIES. IPv4-mapped IPv6 addresses are written as plain IPv4.
 */
export function clientIp(request: Request): string {
  const raw = request.ip ?? request.socket.remoteAddress ?? '';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(raw);
  const address = mapped ? mapped[1] : raw;
  return isIP(address) ? address : '0.0.0.0';
}

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

/** Break-glass credential administration (spec 4.10): auth.breakglass.admin, 404 while disabled. */
@Controller('api/v1/auth/breakglass/credentials')
@BreakGlassRoute()
export class BreakGlassCredentialsController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('auth.breakglass.admin')
  list(@Query() query: PageQuery, @Req() request: Request): Promise<Page<BreakGlassCredentialDto>> {
    return this.bus.request('auth.v1.list-breakglass-credentials', query, { context: busContext(request) });
  }

  /** Sets (201) or rotates (200) the password of a credential. */
  @Post()
  @RequirePermission('auth.breakglass.admin')
  async set(
    @Body() body: SetBreakGlassCredentialRequest,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BreakGlassCredentialDto> {
    const result = await this.bus.request('auth.v1.set-breakglass-credential', body, {
      context: busContext(request),
    });
    response.status(result.created ? 201 : 200);
    return result.credential;
  }

  @Delete(':actorId')
  @HttpCode(204)
  @RequirePermission('auth.breakglass.admin')
  async delete(@Param('actorId') actorId: string, @Req() request: Request): Promise<void> {
    await this.bus.request(
      'auth.v1.delete-breakglass-credential',
      { actor_id: actorId },
      { context: busContext(request) },
    );
  }

  @Post(':actorId/unlock')
  @HttpCode(200)
  @RequirePermission('auth.breakglass.admin')
  unlock(@Param('actorId') actorId: string, @Req() request: Request): Promise<BreakGlassCredentialDto> {
    return this.bus.request(
      'auth.v1.unlock-breakglass-credential',
      { actor_id: actorId },
      { context: busContext(request) },
    );
  }
}
