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
  CreateTargetRequest,
  ListTargetsRequest,
  Page,
  TargetChanges,
  TargetDto,
  TargetTestResult,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';

/** /api/v1/targets (spec 4.5; ADR 0026): validated here, served by deployment-dispatch. */
@Controller('api/v1/targets')
export class TargetsController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('target.read')
  list(@Query() query: ListTargetsRequest, @Req() request: Request): Promise<Page<TargetDto>> {
    return this.bus.request('deployment-dispatch.v1.list-targets', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('target.create')
  create(@Body() body: CreateTargetRequest, @Req() request: Request): Promise<TargetDto> {
    return this.bus.request('deployment-dispatch.v1.create-target', body, { context: busContext(request) });
  }

  @Get(':id')
  @RequirePermission('target.read')
  get(@Param('id') id: string, @Req() request: Request): Promise<TargetDto> {
    return this.bus.request('deployment-dispatch.v1.get-target', { id }, { context: busContext(request) });
  }

  @Put(':id')
  @RequirePermission('target.edit')
  update(@Param('id') id: string, @Body() body: TargetChanges, @Req() request: Request): Promise<TargetDto> {
    return this.bus.request(
      'deployment-dispatch.v1.update-target',
      { ...body, id },
      { context: busContext(request) },
    );
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('target.delete')
  async delete(@Param('id') id: string, @Req() request: Request): Promise<void> {
    await this.bus.request('deployment-dispatch.v1.delete-target', { id }, { context: busContext(request) });
  }

  /** Connects out to the target's stored endpoint, so it needs target.edit (who can set the endpoint). */
  @Post(':id/test')
  @HttpCode(200)
  @RequirePermission('target.edit')
  test(@Param('id') id: string, @Req() request: Request): Promise<TargetTestResult> {
    return this.bus.request('deployment-dispatch.v1.test-target', { id }, { context: busContext(request) });
  }
}
