import { Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ApprovalDto, DecideApprovalBody, ListApprovalsRequest, Page } from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { optionalBody } from '../certificates/request-flags';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';

/** /api/v1/approvals (spec 2.10, section 3; ADR 0025): served by the issuance service. */
@Controller('api/v1/approvals')
export class ApprovalsController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('approval.read')
  list(@Query() query: ListApprovalsRequest, @Req() request: Request): Promise<Page<ApprovalDto>> {
    return this.bus.request('issuance.v1.list-approvals', query, { context: busContext(request) });
  }

  @Get(':id')
  @RequirePermission('approval.read')
  get(@Param('id') id: string, @Req() request: Request): Promise<ApprovalDto> {
    return this.bus.request('issuance.v1.get-approval', { id }, { context: busContext(request) });
  }

  /** 403 approval_self_decision for the requester; 409 approval_not_pending once decided. */
  @Post(':id/approve')
  @HttpCode(200)
  @RequirePermission('approval.decide')
  async approve(@Param('id') id: string, @Req() request: Request): Promise<ApprovalDto> {
    const body = await optionalBody(DecideApprovalBody, request);
    return this.bus.request(
      'issuance.v1.approve-approval',
      { id, ...(body.reason !== undefined ? { reason: body.reason } : {}) },
      { context: busContext(request) },
    );
  }

  @Post(':id/reject')
  @HttpCode(200)
  @RequirePermission('approval.decide')
  async reject(@Param('id') id: string, @Req() request: Request): Promise<ApprovalDto> {
    const body = await optionalBody(DecideApprovalBody, request);
    return this.bus.request(
      'issuance.v1.reject-approval',
      { id, ...(body.reason !== undefined ? { reason: body.reason } : {}) },
      { context: busContext(request) },
    );
  }
}
