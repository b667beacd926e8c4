import type { IncomingHttpHeaders } from 'node:http';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { BACKGROUND_HEADER, CertlaneError, CSRF_HEADER, ErrorCode } from '@certlane/contracts';
import { CERTLANE_CONFIG, CertlaneConfig, PUBLIC_ROUTE, requestIdOf } from '@certlane/platform';
import { Actor, setActor } from './actor';
import { ADMIN_ONLY } from './admin-only';
import { Authenticator, Credentials, WWW_AUTHENTICATE } from './authenticator';
import { ANY_AUTHENTICATED, BREAKGLASS_ROUTE, REQUIRED_PERMISSION } from './route-access';

export { AUTH_SECRET_ACTOR_ID, DEMO_ACTOR_ID } from './authenticator';

/**
 * Every route needs credentials unless marked @PublicRoute() (the Authenticator says whose);
 * admin-only routes and route permissions are checked here, before any service call. Break-glass
 * routes answer 404 to everyone while break-glass is disabled.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly publicHandlers = new WeakMap<object, boolean>();
  private readonly adminHandlers = new WeakMap<object, boolean>();
  private readonly breakGlassHandlers = new WeakMap<object, boolean>();
  private readonly requiredPermissions = new WeakMap<object, string | null>();

  constructor(
    private readonly reflector: Reflector,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    private readonly authenticator: Authenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.config.breakGlass.enabled && this.flag(this.breakGlassHandlers, BREAKGLASS_ROUTE, context)) {
      throw new CertlaneError(ErrorCode.RouteNotFound, 'break-glass is disabled');
    }
    if (this.flag(this.publicHandlers, PUBLIC_ROUTE, context)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const credentials = credentialsOf(request, requestIdOf(request));
    const actor = await this.authenticator.authenticate(credentials).catch((refusal: unknown) => {
      if (refusal instanceof CertlaneError && refusal.code === ErrorCode.Unauthenticated) {
        context
          .switchToHttp()
          .getResponse<Response>()
          .setHeader(...WWW_AUTHENTICATE);
      }
      throw refusal;
    });
    setActor(request, actor);
    if (!actor.admin && this.flag(this.adminHandlers, ADMIN_ONLY, context)) {
      throw new CertlaneError(ErrorCode.Forbidden, 'this route is for admins only');
    }
    const permission = this.permissionFor(context);
    if (permission && permission !== ANY_AUTHENTICATED) assertPermission(actor, permission);
    return true;
  }

  private permissionFor(context: ExecutionContext): string | null {
    const handler = context.getHandler();
    let permission = this.requiredPermissions.get(handler);
    if (permission === undefined) {
      permission = this.reflector.get<string>(REQUIRED_PERMISSION, handler) ?? null;
      this.requiredPermissions.set(handler, permission);
    }
    return permission;
  }

  /** Route metadata does not change at run time: look it up once per handler. */
  private flag(cache: WeakMap<object, boolean>, key: string, context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let value = cache.get(handler);
    if (value === undefined) {
      value = !!this.reflector.getAllAndOverride<boolean>(key, [handler, context.getClass()]);
      cache.set(handler, value);
    }
    return value;
  }
}

/** 403 unless the actor holds the route's permission globally. */
export function assertPermission(actor: Actor, permission: string): void {
  if (actor.permissions.has(permission)) return;
  throw new CertlaneError(ErrorCode.Forbidden, `this route needs the permission ${permission}`, {
    permission,
  });
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The credentials of a request (Express's, or one the route executor serves). */
export function credentialsOf(
  request: { method: string; headers: IncomingHttpHeaders },
  requestId: string,
): Credentials {
  const headers = request.headers;
  return {
    method: request.method,
    requestId,
    authorization: headers.authorization,
    cookie: headers.cookie,
    userAgent: headers['user-agent'],
    csrfToken: single(headers[CSRF_HEADER.toLowerCase()]),
    background: single(headers[BACKGROUND_HEADER]) === '1',
  };
}
