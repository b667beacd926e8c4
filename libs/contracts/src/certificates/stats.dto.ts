import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { digitsToNumber } from '../pagination/page';
import { CertificateStatus } from './certificate.dto';

/** GET /api/v1/stats/summary: dashboard counters, computed in SQL. */
export interface StatsSummaryDto {
  total_certificates: number;
  by_status: Record<CertificateStatus, number>;
  expiring_within: { days_7: number; days_30: number; days_90: number };
  jobs_by_status: Record<string, number>;
  generated_at: string;
}

export class StatsWindowRequest {
  @IsOptional()
  @Transform(digitsToNumber)
  @IsInt({ message: 'days must be an integer' })
  @Min(1, { message: 'days must be between 1 and 365' })
  @Max(365, { message: 'days must be between 1 and 365' })
  days?: number;
}

export interface DailyCount {
  date: string;
  count: number;
}

/** Certificates whose current version expires on each day of the window ahead. */
export interface ExpirationTimelineDto {
  days: number;
  data: DailyCount[];
}

/** Versions issued per day over the window behind. */
export interface IssuanceRateDto {
  days: number;
  data: DailyCount[];
}

export interface JobOutcomeDay {
  date: string;
  completed: number;
  failed: number;
  cancelled: number;
}

/** Jobs reaching a final status per day over the window behind. */
export interface JobTrendsDto {
  days: number;
  data: JobOutcomeDay[];
}
