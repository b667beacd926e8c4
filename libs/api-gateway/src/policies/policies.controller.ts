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
  CreatePolicyRuleRequest,
  EvaluatePoliciesRequest,
  Page,
  PageQuery,
  PolicyEvaluationResult,
  PolicyRuleChanges,
  PolicyRuleDto,
  PolicyViolationDto,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';

/** /api/v1/policies (spec 2.6, 2.7, 4.5; ADR 0028): validated here, served by issuance. */
@Controller('api/v1/policies')
export class PoliciesController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('policy.read')
  list(@Query() query: PageQuery, @Req() request: Request): Promise<Page<PolicyRuleDto>> {
    return this.bus.request('issuance.v1.list-policies', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('policy.create')
  create(@Body() body: CreatePolicyRuleRequest, @Req() request: Request): Promise<PolicyRuleDto> {
    return this.bus.request('issuance.v1.create-policy', body, { context: busContext(request) });
  }

  /** Dry run: a proposed certificate against every enabled rule; no violation is stored. */
  @Post('evaluate')
  @HttpCode(200)
  @RequirePermission('policy.read')
  evaluate(@Body() body: EvaluatePoliciesRequest, @Req() request: Request): Promise<PolicyEvaluationResult> {
    return this.bus.request('issuance.v1.evaluate-policies', body, { context: busContext(request) });
  }

  @Get(':id')
  @RequirePermission('policy.read')
  get(@Param('id') id: string, @Req() request: Request): Promise<PolicyRuleDto> {
    return this.bus.request('issuance.v1.get-policy', { id }, { context: busContext(request) });
  }

  @Put(':id')
  @RequirePermission('policy.edit')
  update(
    @Param('id') id: string,
    @Body() body: PolicyRuleChanges,
    @Req() request: Request,
  ): Promise<PolicyRuleDto> {
    return this.bus.request('issuance.v1.update-policy', { ...body, id }, { context: busContext(request) });
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('policy.delete')
  async delete(@Param('id') id: string, @Req() request: Request): Promise<void> {
    await this.bus.request('issuance.v1.delete-policy', { id }, { context: busContext(request) });
  }

  @Get(':id/violations')
  @RequirePermission('policy.read')
  violations(
    @Param('id') id: string,
    @Query() query: PageQuery,
    @Req() request: Request,
  ): Promise<Page<PolicyViolationDto>> {
    return this.bus.request(
      'issuance.v1.list-policy-violations',
      { ...query, id },
      { context: busContext(request) },
    );
  }
}
