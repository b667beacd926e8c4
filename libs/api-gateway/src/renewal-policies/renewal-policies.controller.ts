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
  CreateRenewalPolicyRequest,
  Page,
  PageQuery,
  RenewalPolicyChanges,
  RenewalPolicyDto,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';

/** /api/v1/renewal-policies (spec 4.6): validated here, served by the issuance service. */
@Controller('api/v1/renewal-policies')
export class RenewalPoliciesController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get()
  @RequirePermission('renewal_policy.read')
  list(@Query() query: PageQuery, @Req() request: Request): Promise<Page<RenewalPolicyDto>> {
    return this.bus.request('issuance.v1.list-renewal-policies', query, { context: busContext(request) });
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('renewal_policy.create')
  create(@Body() body: CreateRenewalPolicyRequest, @Req() request: Request): Promise<RenewalPolicyDto> {
    return this.bus.request('issuance.v1.create-renewal-policy', body, { context: busContext(request) });
  }

  @Get(':id')
  @RequirePermission('renewal_policy.read')
  get(@Param('id') id: string, @Req() request: Request): Promise<RenewalPolicyDto> {
    return this.bus.request('issuance.v1.get-renewal-policy', { id }, { context: busContext(request) });
  }

  @Put(':id')
  @RequirePermission('renewal_policy.edit')
  update(
    @Param('id') id: string,
    @Body() body: RenewalPolicyChanges,
    @Req() request: Request,
  ): Promise<RenewalPolicyDto> {
    return this.bus.request(
      'issuance.v1.update-renewal-policy',
      { ...body, id },
      { context: busContext(request) },
    );
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('renewal_policy.delete')
  async delete(@Param('id') id: string, @Req() request: Request): Promise<void> {
    await this.bus.request('issuance.v1.delete-renewal-policy', { id }, { context: busContext(request) });
  }
}
