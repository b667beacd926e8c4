import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Query,
  Req,
} from '@nestjs/common';
import type { Request } from 'express';
import {
  CreateOwnerRequest,
  CreateTeamRequest,
  ListOwnersRequest,
  ListTeamsRequest,
  OwnerDto,
  OwnerFields,
  Page,
  TeamDto,
  TeamFields,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';

/** /api/v1/teams (ADR 0024): validated here, served by the issuance service. */
@Controller('api/v1/teams')
export class TeamsController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('team.read')
  list(@Query() query: ListTeamsRequest, @Req() request: Request): Promise<Page<TeamDto>> {
    return this.bus.request('issuance.v1.list-teams', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('team.create')
  create(@Body() body: CreateTeamRequest, @Req() request: Request): Promise<TeamDto> {
    return this.bus.request('issuance.v1.create-team', body, { context: busContext(request) });
  }

  @Get(':id')
  @RequirePermission('team.read')
  get(@Param('id') id: string, @Req() request: Request): Promise<TeamDto> {
    return this.bus.request('issuance.v1.get-team', { id }, { context: busContext(request) });
  }

  @Put(':id')
  @RequirePermission('team.edit')
  update(@Param('id') id: string, @Body() body: TeamFields, @Req() request: Request): Promise<TeamDto> {
    return this.bus.request('issuance.v1.update-team', { ...body, id }, { context: busContext(request) });
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('team.delete')
  async delete(@Param('id') id: string, @Req() request: Request): Promise<void> {
    await this.bus.request('issuance.v1.delete-team', { id }, { context: busContext(request) });
  }
}

/** /api/v1/owners (ADR 0024): validated here, served by the issuance service. */
@Controller('api/v1/owners')
export class OwnersController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('owner.read')
  list(@Query() query: ListOwnersRequest, @Req() request: Request): Promise<Page<OwnerDto>> {
    return this.bus.request('issuance.v1.list-owners', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('owner.create')
  create(@Body() body: CreateOwnerRequest, @Req() request: Request): Promise<OwnerDto> {
    return this.bus.request('issuance.v1.create-owner', body, { context: busContext(request) });
  }

  @Get(':id')
  @RequirePermission('owner.read')
  get(@Param('id') id: string, @Req() request: Request): Promise<OwnerDto> {
    return this.bus.request('issuance.v1.get-owner', { id }, { context: busContext(request) });
  }

  @Put(':id')
  @RequirePermission('owner.edit')
  update(@Param('id') id: string, @Body() body: OwnerFields, @Req() request: Request): Promise<OwnerDto> {
    return this.bus.request('issuance.v1.update-owner', { ...body, id }, { context: busContext(request) });
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('owner.delete')
  async delete(@Param('id') id: string, @Req() request: Request): Promise<void> {
    await this.bus.request('issuance.v1.delete-owner', { id }, { context: busContext(request) });
  }
}
