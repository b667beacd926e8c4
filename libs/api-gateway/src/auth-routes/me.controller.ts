import { Controller, Get, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import {
  AuthCheck,
  AuthCheckQuery,
  AuthMe,
  CertlaneError,
  ErrorCode,
  permittedBy,
} from '@certlane/contracts';
import { Actor, actorOf, grantsOf } from '../auth/actor';
import { AnyAuthenticated } from '../auth/route-access';

const authenticated = (request: Request): Actor => {
  const actor = actorOf(request);
  if (!actor) throw new CertlaneError(ErrorCode.Unauthenticated, 'not authenticated');
  return actor;
};

/** The caller's own identity (spec 4.1): `/api/v1/auth/check` and `/api/v1/auth/me`. */
@Controller('api/v1/auth')
export class MeController {
  /** `{status}`; with `?permission=` (and `&scope=`) also whether the caller holds it there. */
  @Get('check')
  @AnyAuthenticated()
  check(@Query() query: AuthCheckQuery, @Req() request: Request): AuthCheck {
    if (!query.permission) return { status: 'ok' };
    const via = permittedBy(grantsOf(authenticated(request)), query.permission, query.scope);
    return {
      status: 'ok',
      permission: query.permission,
      scope: query.scope ?? '*',
      allowed: via !== null,
      via,
    };
  }

  @Get('me')
  @AnyAuthenticated()
  me(@Req() request: Request): AuthMe {
    const actor = authenticated(request);
    return {
      actor_id: actor.id,
      actor_type: actor.kind,
      admin: actor.admin,
      role_ids: [...actor.roleIds],
      effective_permissions: [...actor.permissions].sort(),
      scoped_permissions: Object.fromEntries(
        [...actor.scopedPermissions].map(([scope, permissions]) => [scope, [...permissions].sort()]),
      ),
    };
  }
}
