import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  CERTIFICATE_STATUSES,
  CertificateStatus,
  DailyCount,
  ExpirationTimelineDto,
  IssuanceRateDto,
  JOB_STATUSES,
  JobOutcomeDay,
  JobTrendsDto,
  StatsSummaryDto,
} from '@certlane/contracts';
import { DataSource } from 'typeorm';
import {
  CERTIFICATES_BY_STATUS,
  EXPIRATION_TIMELINE,
  EXPIRING_WITHIN,
  ISSUANCE_RATE,
  JOB_TRENDS,
  JOBS_BY_STATUS,
} from './stats.queries';
import { ReadCoalescer } from '@certlane/issuance-ca';

export const EXPIRATION_TIMELINE_DEFAULT_DAYS = 90;
export const ISSUANCE_RATE_DEFAULT_DAYS = 30;
export const JOB_TRENDS_DEFAULT_DAYS = 30;

/** Every key of `keys` with its count from `rows` (0 when absent); unknown keys are kept too. */
export function countsByKey<K extends string>(
  keys: readonly K[],
  rows: readonly { status: string; n: number }[],
): Record<K, number> {
  const counts = Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;
  for (const row of rows) counts[row.status as K] = (counts[row.status as K] ?? 0) + row.n;
  return counts;
}

/** The dashboard (GET /api/v1/stats/*): read-only SQL aggregates, nothing loaded into memory. */
@Injectable()
export class StatsService {
  /**
   * The summary's aggregates scan the live certificates (hundreds of ms at a million rows), so
   * concurrent dashboard callers share one computation: each gets one that started after it
   * asked (never an older answer), and a burst costs two computations instead of one per caller.
   */
  private readonly summaries = new ReadCoalescer<'summary', StatsSummaryDto>(() => this.computeSummary());

  constructor(@InjectDataSource('issuance') private readonly dataSource: DataSource) {}

  summary(): Promise<StatsSummaryDto> {
    return this.summaries.get('summary');
  }

  private async computeSummary(): Promise<StatsSummaryDto> {
    const [byStatus, [expiring], jobs] = await Promise.all([
      this.dataSource.query(CERTIFICATES_BY_STATUS) as Promise<{ status: string; n: number }[]>,
      this.dataSource.query(EXPIRING_WITHIN) as Promise<
        { days_7: number; days_30: number; days_90: number }[]
      >,
      this.dataSource.query(JOBS_BY_STATUS) as Promise<{ status: string; n: number }[]>,
    ]);
    const by_status = countsByKey<CertificateStatus>(CERTIFICATE_STATUSES, byStatus);
    return {
      total_certificates: byStatus.reduce((sum, row) => sum + row.n, 0),
      by_status,
      expiring_within: expiring,
      jobs_by_status: countsByKey(JOB_STATUSES, jobs),
      generated_at: new Date().toISOString(),
    };
  }

  async expirationTimeline(days = EXPIRATION_TIMELINE_DEFAULT_DAYS): Promise<ExpirationTimelineDto> {
    const data: DailyCount[] = await this.dataSource.query(EXPIRATION_TIMELINE, [days]);
    return { days, data };
  }

  async issuanceRate(days = ISSUANCE_RATE_DEFAULT_DAYS): Promise<IssuanceRateDto> {
    const data: DailyCount[] = await this.dataSource.query(ISSUANCE_RATE, [days]);
    return { days, data };
  }

  async jobTrends(days = JOB_TRENDS_DEFAULT_DAYS): Promise<JobTrendsDto> {
    const data: JobOutcomeDay[] = await this.dataSource.query(JOB_TRENDS, [days]);
    return { days, data };
  }
}
