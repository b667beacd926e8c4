import { Controller, Get, Inject, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ActorRoles, Page, PageQuery } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';

/** GET /api/v1/auth/keys (spec 4.10): one row per actor with its role ids. */
@Controller('api/v1/auth/keys')
export class ActorsController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('auth.role.list')
  list(@Query() query: PageQuery, @Req() request: Request): Promise<Page<ActorRoles>> {
    return this.bus.request('auth.v1.list-actors', query, { context: busContext(request) });
  }
}
