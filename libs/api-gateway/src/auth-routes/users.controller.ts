import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import {
  AuthRuntimeConfig,
  BREAKGLASS_RATE_LIMIT,
  DemoResidualRemoved,
  Page,
  PageQuery,
  SESSION_LIFETIME_SECONDS,
  UserDeactivated,
  UserDto,
} from '@certlane/contracts';
import { CERTLANE_CONFIG, CertlaneConfig, MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { PrincipalCache } from '../auth/principal-cache';
import { RequirePermission } from '../auth/route-access';

/** Users (spec 4.10; docs/decisions/0018-break-glass-and-users.md). */
@Controller('api/v1/auth/users')
export class UsersController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly principals: PrincipalCache,
  ) {}

  @Get()
  @RequirePermission('auth.user.read')
  list(@Query() query: PageQuery, @Req() request: Request): Promise<Page<UserDto>> {
    return this.bus.request('auth.v1.list-users', query, { context: busContext(request) });
  }

  /** Deactivates a user and revokes its sessions and API keys at once; 409 on oneself. */
  @Delete(':id')
  @HttpCode(200)
  @RequirePermission('auth.user.deactivate')
  async deactivate(@Param('id') id: string, @Req() request: Request): Promise<UserDeactivated> {
    const deactivated = await this.bus.request(
      'auth.v1.deactivate-user',
      { actor_id: id },
      { context: busContext(request) },
    );
    this.principals.dropActor(id);
    return deactivated;
  }

  @Post(':id/reactivate')
  @HttpCode(200)
  @RequirePermission('auth.user.deactivate')
  reactivate(@Param('id') id: string, @Req() request: Request): Promise<UserDto> {
    return this.bus.request('auth.v1.reactivate-user', { actor_id: id }, { context: busContext(request) });
  }
}

/** Auth settings and demo-residual cleanup (spec 4.10): auth.role.assign. */
@Controller('api/v1/auth')
export class AuthSettingsController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
  ) {}

  /** The non-secret auth settings this gateway runs with (every process reads the same variables). */
  @Get('runtime-config')
  @RequirePermission('auth.role.assign')
  runtimeConfig(): AuthRuntimeConfig {
    const { auth, session, breakGlass, trustedProxies } = this.config;
    return {
      auth_type: auth.type,
      demo_mode: auth.type === 'none',
      session: {
        samesite: session.sameSite,
        lifetime_seconds: SESSION_LIFETIME_SECONDS,
        idle_timeout_seconds: session.idleTimeoutMs / 1000,
        bind_user_agent: session.bindUserAgent,
        gc_interval_seconds: session.gcIntervalMs / 1000,
        signing_secret_source: session.dedicatedSecret
          ? 'SERVICE_SESSION_SECRET'
          : 'SERVICE_CONFIG_ENCRYPTION_KEY',
      },
      breakglass: {
        enabled: breakGlass.enabled,
        lockout_threshold: breakGlass.lockoutThreshold,
        rate_limit: {
          attempts: BREAKGLASS_RATE_LIMIT.attempts,
          window_seconds: BREAKGLASS_RATE_LIMIT.windowSeconds,
        },
      },
      trusted_proxies: [...trustedProxies],
    };
  }

  /** Removes what demo mode left behind (ADR 0018); 503 while the system runs in demo mode. */
  @Post('demo-residual/cleanup')
  @HttpCode(200)
  @RequirePermission('auth.role.assign')
  cleanupDemoResidual(@Req() request: Request): Promise<DemoResidualRemoved> {
    return this.bus.request('auth.v1.cleanup-demo-residual', {}, { context: busContext(request) });
  }
}
