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
  Res,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  CreateProfileRequest,
  ListProfilesRequest,
  Page,
  ProfileChanges,
  ProfileDto,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';

/** /api/v1/profiles (spec 2.9, 4.5; ADR 0025): validated here, served by the issuance service. */
@Controller('api/v1/profiles')
export class ProfilesController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('profile.read')
  list(@Query() query: ListProfilesRequest, @Req() request: Request): Promise<Page<ProfileDto>> {
    return this.bus.request('issuance.v1.list-profiles', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('profile.create')
  create(@Body() body: CreateProfileRequest, @Req() request: Request): Promise<ProfileDto> {
    return this.bus.request('issuance.v1.create-profile', body, { context: busContext(request) });
  }

  @Get(':id')
  @RequirePermission('profile.read')
  get(@Param('id') id: string, @Req() request: Request): Promise<ProfileDto> {
    return this.bus.request('issuance.v1.get-profile', { id }, { context: busContext(request) });
  }

  /** 200 with the profile, or 202 `{pending_approval_id}` when the edit waits for approval. */
  @Put(':id')
  @RequirePermission('profile.edit')
  async update(
    @Param('id') id: string,
    @Body() body: ProfileChanges,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ProfileDto | { pending_approval_id: string }> {
    const result = await this.bus.request(
      'issuance.v1.update-profile',
      { ...body, id },
      { context: busContext(request) },
    );
    if (result.applied) return result.profile;
    response.status(202);
    return { pending_approval_id: result.pending_approval_id };
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('profile.delete')
  async delete(@Param('id') id: string, @Req() request: Request): Promise<void> {
    await this.bus.request('issuance.v1.delete-profile', { id }, { context: busContext(request) });
  }
}
