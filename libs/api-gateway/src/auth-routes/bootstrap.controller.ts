import { Body, Controller, Get, HttpCode, Inject, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { BootstrapRequest, BootstrapResponse, BootstrapStatus } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus, PublicRoute } from '@certlane/platform';
import { busContext } from '../auth/actor';

/** Day-0 bootstrap (spec 4.10, 5.6): unauthenticated by design; the token is the credential. */
@PublicRoute()
@Controller('api/v1/auth/bootstrap')
export class BootstrapController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  status(@Req() request: Request): Promise<BootstrapStatus> {
    return this.bus.request('auth.v1.get-bootstrap-status', {}, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  consume(@Body() body: BootstrapRequest, @Req() request: Request): Promise<BootstrapResponse> {
    return this.bus.request('auth.v1.bootstrap', body, { context: busContext(request) });
  }
}
