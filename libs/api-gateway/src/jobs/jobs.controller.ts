import { Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import {
  JobDto,
  JobVerificationDto,
  ListJobsRequest,
  Page,
  RejectJobBody,
  StatusResponse,
  VerifyJobBody,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { optionalBody } from '../certificates/request-flags';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';

/** /api/v1/jobs (spec 4.5, ADR 0024): served by the issuance service, which owns jobs. */
@Controller('api/v1/jobs')
export class JobsController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('job.read')
  list(@Query() query: ListJobsRequest, @Req() request: Request): Promise<Page<JobDto>> {
    return this.bus.request('issuance.v1.list-jobs', query, { context: busContext(request) });
  }

  @Get(':id')
  @RequirePermission('job.read')
  get(@Param('id') id: string, @Req() request: Request): Promise<JobDto> {
    return this.bus.request('issuance.v1.get-job', { id }, { context: busContext(request) });
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @RequirePermission('job.cancel')
  cancel(@Param('id') id: string, @Req() request: Request): Promise<StatusResponse> {
    return this.bus.request('issuance.v1.cancel-job', { id }, { context: busContext(request) });
  }

  @Post(':id/approve')
  @HttpCode(200)
  @RequirePermission('job.approve')
  approve(@Param('id') id: string, @Req() request: Request): Promise<JobDto> {
    return this.bus.request('issuance.v1.approve-job', { id }, { context: busContext(request) });
  }

  @Post(':id/reject')
  @HttpCode(200)
  @RequirePermission('job.reject')
  async reject(@Param('id') id: string, @Req() request: Request): Promise<JobDto> {
    const body = await optionalBody(RejectJobBody, request);
    return this.bus.request(
      'issuance.v1.reject-job',
      { id, ...(body.reason !== undefined ? { reason: body.reason } : {}) },
      { context: busContext(request) },
    );
  }

  /** Connects to `endpoint` and checks that it serves the version the deployment shipped. */
  @Post(':id/verify')
  @HttpCode(200)
  @RequirePermission('job.verify')
  async verify(@Param('id') id: string, @Req() request: Request): Promise<JobVerificationDto> {
    const body = await optionalBody(VerifyJobBody, request);
    return this.bus.request('issuance.v1.verify-job', { ...body, id }, { context: busContext(request) });
  }

  @Get(':id/verification')
  @RequirePermission('job.read')
  verification(@Param('id') id: string, @Req() request: Request): Promise<JobVerificationDto> {
    return this.bus.request('issuance.v1.get-job-verification', { id }, { context: busContext(request) });
  }
}
