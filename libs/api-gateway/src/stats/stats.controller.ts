import { Controller, Get, Inject, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import {
  ExpirationTimelineDto,
  IssuanceRateDto,
  JobTrendsDto,
  StatsSummaryDto,
  StatsWindowRequest,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { busContext } from '../auth/actor';
import { RequirePermission } from '../auth/route-access';

/** /api/v1/stats (ADR 0024): dashboard aggregates computed by the issuance service in SQL. */
@Controller('api/v1/stats')
export class StatsController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Get('summary')
  @RequirePermission('certificate.read')
  summary(@Req() request: Request): Promise<StatsSummaryDto> {
    return this.bus.request('issuance.v1.get-stats-summary', {}, { context: busContext(request) });
  }

  /** `days` 1..365, default 90: today (UTC) and the days after it. */
  @Get('expiration-timeline')
  @RequirePermission('certificate.read')
  expirationTimeline(
    @Query() query: StatsWindowRequest,
    @Req() request: Request,
  ): Promise<ExpirationTimelineDto> {
    return this.bus.request('issuance.v1.get-expiration-timeline', query, { context: busContext(request) });
  }

  /** `days` 1..365, default 30: the days before today (UTC) and today. */
  @Get('issuance-rate')
  @RequirePermission('certificate.read')
  issuanceRate(@Query() query: StatsWindowRequest, @Req() request: Request): Promise<IssuanceRateDto> {
    return this.bus.request('issuance.v1.get-issuance-rate', query, { context: busContext(request) });
  }

  /** `days` 1..365, default 30: jobs finished per day, by outcome. */
  @Get('job-trends')
  @RequirePermission('job.read')
  jobTrends(@Query() query: StatsWindowRequest, @Req() request: Request): Promise<JobTrendsDto> {
    return this.bus.request('issuance.v1.get-job-trends', query, { context: busContext(request) });
  }
}
