import { Controller, Get, Req } from '@nestjs/common';
import type { Request } from 'express';
import { AuthMe, CertlaneError, ErrorCode } from '@certlane/contracts';
import { actorOf } from '../auth/actor';
import { AnyAuthenticated } from '../auth/route-access';

/** The caller's own identity (spec 4.1): `/api/v1/auth/check` and `/api/v1/auth/me`. */
@Controller('api/v1/auth')
export class MeController {
  @Get('check')
  @AnyAuthenticated()
  check(): { status: string } {
    return { status: 'ok' };
  }

  @Get('me')
  @AnyAuthenticated()
  me(@Req() request: Request): AuthMe {
    const actor = actorOf(request);
    if (!actor) throw new CertlaneError(ErrorCode.Unauthenticated, 'not authenticated');
    return {
      actor_id: actor.id,
      actor_type: actor.kind,
      admin: actor.admin,
      role_ids: [...actor.roleIds],
      effective_permissions: [...actor.permissions].sort(),
    };
  }
}
