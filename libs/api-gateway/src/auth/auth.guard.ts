import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { assertSupportedAuthType, CERTLANE_CONFIG, CertlaneConfig, PUBLIC_ROUTE } from '@certlane/platform';
import { setActor } from './actor';
import { ApiKeyVerifier, bearerToken } from './api-key-verifier';

export const DEMO_ACTOR_ID = 'actor-demo-anon';
export const AUTH_SECRET_ACTOR_ID = 'actor-service-auth-secret';

/**
 * Every route needs credentials unless marked @PublicRoute(). In api-key (and, until sessions
 * land, oidc) mode the bearer key must equal SERVICE_AUTH_SECRET; in none mode every request
 * acts as actor-demo-anon. Nothing is open by accident: no key configured means no key accepted.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly verifier?: ApiKeyVerifier;
  /** Route metadata does not change at run time: look it up once per handler. */
  private readonly publicHandlers = new WeakMap<object, boolean>();

  constructor(
    private readonly reflector: Reflector,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
  ) {
    assertSupportedAuthType(config.auth.type);
    if (config.auth.secret) this.verifier = new ApiKeyVerifier(config.auth.secret);
  }

  canActivate(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let isPublic = this.publicHandlers.get(handler);
    if (isPublic === undefined) {
      isPublic = !!this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [handler, context.getClass()]);
      this.publicHandlers.set(handler, isPublic);
    }
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (this.config.auth.type === 'none') {
      setActor(request, { id: DEMO_ACTOR_ID, kind: 'demo' });
      return true;
    }
    const token = bearerToken(request.header('authorization'));
    if (!token || !this.verifier?.matches(token)) {
      context.switchToHttp().getResponse<Response>().setHeader('WWW-Authenticate', 'Bearer realm="certlane"');
      throw new CertlaneError(
        ErrorCode.Unauthenticated,
        token ? 'the API key is not valid' : 'this route needs an API key: send Authorization: Bearer <key>',
      );
    }
    setActor(request, { id: AUTH_SECRET_ACTOR_ID, kind: 'api-key' });
    return true;
  }
}
