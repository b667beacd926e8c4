import { CanActivate, ExecutionContext, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { CertlaneError, DEFAULT_ROLES, ErrorCode, PERMISSIONS } from '@certlane/contracts';
import {
  assertSupportedAuthType,
  CERTLANE_CONFIG,
  CertlaneConfig,
  MESSAGE_BUS,
  MessageBus,
  PUBLIC_ROUTE,
  requestIdOf,
} from '@certlane/platform';
import { Actor, NO_SCOPED_PERMISSIONS, setActor } from './actor';
import { ADMIN_ONLY } from './admin-only';
import { ApiKeyVerifier, bearerToken } from './api-key-verifier';
import { PrincipalCache } from './principal-cache';
import { ANY_AUTHENTICATED, REQUIRED_PERMISSION } from './route-access';

const EVERY_PERMISSION: ReadonlySet<string> = new Set(PERMISSIONS);

export const DEMO_ACTOR_ID = 'actor-demo-anon';
export const AUTH_SECRET_ACTOR_ID = 'actor-service-auth-secret';

/**
 * Every route needs credentials unless marked @PublicRoute(). In api-key (and, until sessions
 * land, oidc) mode the bearer key is either SERVICE_AUTH_SECRET (an admin) or a key stored by the
 * auth service, asked over the bus and cached for seconds; in none mode every request acts as
 * actor-demo-anon. @AdminOnly() routes refuse non-admins with 403. Nothing is open by accident:
 * an unknown key, or an auth service that does not answer, never lets a request through.
 */
@Injectable()
export class AuthGuard implements CanActivate, OnApplicationBootstrap {
  private readonly verifier?: ApiKeyVerifier;
  private readonly publicHandlers = new WeakMap<object, boolean>();
  private readonly adminHandlers = new WeakMap<object, boolean>();
  private readonly requiredPermissions = new WeakMap<object, string | null>();
  private readonly principals = new PrincipalCache();
  /** SERVICE_API_KEYS_NAMED, by the SHA-256 of each key (the keys themselves are not kept). */
  private readonly namedKeys = new Map<string, Actor>();

  constructor(
    private readonly reflector: Reflector,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
  ) {
    assertSupportedAuthType(config.auth.type);
    if (config.auth.secret) this.verifier = new ApiKeyVerifier(config.auth.secret);
    for (const named of config.auth.namedKeys) {
      const permissions = new Set(named.roleIds.flatMap((role) => DEFAULT_ROLES[role]?.permissions ?? []));
      this.namedKeys.set(PrincipalCache.keyOf(named.key), {
        id: named.name,
        kind: 'api-key',
        admin: named.roleIds.includes('r-admin'),
        roleIds: named.roleIds,
        permissions,
        scopedPermissions: NO_SCOPED_PERMISSIONS,
      });
    }
  }

  /** Every gateway replica drops revoked keys and changed grants from its cache as events arrive. */
  async onApplicationBootstrap(): Promise<void> {
    await this.bus.subscribe('auth.v1.api-key.revoked', async (event) =>
      this.principals.dropKey(event.data.id),
    );
    await this.bus.subscribe('auth.v1.grants.changed', async (event) => {
      if (event.data.role_id) this.principals.clear();
      else if (event.data.actor_id) this.principals.dropActor(event.data.actor_id);
    });
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.flag(this.publicHandlers, PUBLIC_ROUTE, context)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const actor = await this.authenticate(request, context);
    setActor(request, actor);
    if (!actor.admin && this.flag(this.adminHandlers, ADMIN_ONLY, context)) {
      throw new CertlaneError(ErrorCode.Forbidden, 'this route is for admins only');
    }
    const permission = this.permissionFor(context);
    if (permission && permission !== ANY_AUTHENTICATED && !actor.permissions.has(permission)) {
      throw new CertlaneError(ErrorCode.Forbidden, `this route needs the permission ${permission}`, {
        permission,
      });
    }
    return true;
  }

  private async authenticate(request: Request, context: ExecutionContext): Promise<Actor> {
    if (this.config.auth.type === 'none') {
      return {
        id: DEMO_ACTOR_ID,
        kind: 'demo',
        admin: true,
        roleIds: ['r-admin'],
        permissions: EVERY_PERMISSION,
        scopedPermissions: NO_SCOPED_PERMISSIONS,
      };
    }
    const token = bearerToken(request.header('authorization'));
    if (token && this.verifier?.matches(token)) {
      return {
        id: AUTH_SECRET_ACTOR_ID,
        kind: 'service-secret',
        admin: true,
        roleIds: ['r-admin'],
        permissions: EVERY_PERMISSION,
        scopedPermissions: NO_SCOPED_PERMISSIONS,
      };
    }
    if (token) {
      const keyHash = PrincipalCache.keyOf(token);
      const named = this.namedKeys.get(keyHash);
      if (named) return named;
      let principal = this.principals.get(keyHash);
      if (!principal) {
        const answer = await this.bus.request(
          'auth.v1.authenticate-api-key',
          { key: token },
          { context: { request_id: requestIdOf(request) } },
        );
        if (answer.principal) {
          principal = answer.principal;
          this.principals.set(keyHash, principal);
        }
      }
      if (principal) {
        return {
          id: principal.actor_id,
          kind: 'api-key',
          admin: principal.admin,
          roleIds: principal.role_ids,
          permissions: new Set(principal.permissions),
          scopedPermissions: new Map(
            Object.entries(principal.scoped_permissions ?? {}).map(([scope, list]) => [scope, new Set(list)]),
          ),
        };
      }
    }
    context.switchToHttp().getResponse<Response>().setHeader('WWW-Authenticate', 'Bearer realm="certlane"');
    throw new CertlaneError(
      ErrorCode.Unauthenticated,
      token ? 'the API key is not valid' : 'this route needs an API key: send Authorization: Bearer <key>',
    );
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
